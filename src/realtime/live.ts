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

/** The last item of a topic whose object is gone: subscriptions of it end, with `reason` (docs/realtime.md). */
export const TOPIC_ENDED = 'topic.ended';

export interface TopicEnd {
  topic: string;
  /** Why, e.g. `deleted`. */
  reason: string;
}

/** Ends every subscription of the topic on every node: sockets get `unsubscribed` with the reason, event streams a last `topic.ended` event and their end. */
export function endLive(bus: Bus, appId: string, kind: string, id: string, reason: string): void {
  const end: TopicEnd = { topic: topicName(kind, id), reason };
  publishLive(bus, appId, kind, id, { type: TOPIC_ENDED, data: end });
}

export interface FeedPage {
  /** Oldest first. Every item carries seq and cursor. */
  items: LiveMessage[];
  /** Cursor after the last item (or the given one when nothing is new). */
  cursor: string;
  /** The seq `cursor` stands at: items subscribers may not see move it past the last item (for an empty cursor, the head). */
  seq?: number;
  /** The seq the cursor asked for stood at: the `prev` of the first item. */
  from?: number;
}
