import type { Bus } from './bus.js';

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

/** A live topic, `kind:id`, of a kind an area registered (TopicRegistry). */
export const topicName = (kind: string, id: string) => `${kind}:${id}`;

export function publishLive(bus: Bus, appId: string, kind: string, id: string, message: LiveMessage): void {
  bus.publish(appId, { topic: topicName(kind, id), payload: message });
}

export interface FeedPage {
  /** Oldest first. Every item carries seq and cursor. */
  items: LiveMessage[];
  /** Cursor after the last item (or the given one when nothing is new). */
  cursor: string;
  /** The feed position `cursor` holds, when the page was asked for the head (an empty cursor). */
  seq?: number;
}
