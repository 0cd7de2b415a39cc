import { topicName } from '../../realtime/live.js';

/**
 * Bus topics that carry a room's feed. Shadow-banned events go on a topic of their own: every
 * node's memory ring takes them in (the feed has no holes), while the WebSocket hub, which only
 * forwards `room:` topics, never shows them to other subscribers.
 */
const SHADOW = 'chat-shadow:';
/** The topic kind of a room's live feed, `room:{roomid}`. */
export const ROOM_KIND = 'room';
const ROOM = topicName(ROOM_KIND, '');

export const feedTopic = (roomId: string, shadowban: boolean) => (shadowban ? `${SHADOW}${roomId}` : topicName(ROOM_KIND, roomId));

/** The room a feed topic belongs to, or undefined for other topics. */
export function roomOfFeedTopic(topic: string): string | undefined {
  if (topic.startsWith(ROOM)) return topic.slice(ROOM.length);
  if (topic.startsWith(SHADOW)) return topic.slice(SHADOW.length);
  return undefined;
}
