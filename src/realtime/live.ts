import type { Application } from '../apps/types.js';
import type { Bus } from './bus.js';

/**
 * Live topics: `room:{roomid}`, `conversation:{conversationid}`, `poll:{pollid}`,
 * `context:{contextid}` (telemetry) and `user:{userid}` (notifications).
 */
export type TopicKind = 'room' | 'conversation' | 'poll' | 'context' | 'user';

/** What an area publishes on the bus for a topic; the realtime layer turns it into a frame. */
export interface LiveMessage {
  /** Frame type, e.g. `chat.event`, `comment.created`, `poll.standings`, `presence`, `notification`. */
  type: string;
  /** The JSON object exactly as REST returns it. */
  data: unknown;
  /** Position in the topic's feed, for topics that can be resumed (rooms); increases by one per item. */
  seq?: number;
  /** The REST cursor that continues after this item (the `updates` cursor for rooms). */
  cursor?: string;
}

export const topicName = (kind: TopicKind, id: string) => `${kind}:${id}`;

export function publishLive(bus: Bus, appId: string, kind: TopicKind, id: string, message: LiveMessage): void {
  bus.publish(appId, { topic: topicName(kind, id), payload: message });
}

export interface FeedPage {
  /** Oldest first. Every item carries seq and cursor. */
  items: LiveMessage[];
  /** Cursor after the last item (or the given one when nothing is new). */
  cursor: string;
}

/** A topic kind whose history can be replayed from a cursor, so a WebSocket client resumes with no gap. */
export interface TopicFeed {
  /** Throws a not_found DomainError when the topic's object does not exist in this app. */
  assertExists(app: Application, id: string): Promise<void>;
  /** Items after `cursor` (exclusive); an empty cursor means: nothing, just the current position. */
  since(app: Application, id: string, cursor: string, limit: number): Promise<FeedPage>;
}

export class FeedRegistry {
  private readonly feeds = new Map<TopicKind, TopicFeed>();

  register(kind: TopicKind, feed: TopicFeed): void {
    this.feeds.set(kind, feed);
  }

  get(kind: TopicKind): TopicFeed | undefined {
    return this.feeds.get(kind);
  }
}
