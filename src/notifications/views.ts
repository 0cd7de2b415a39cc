import { isoOrNull } from '../iso.js';
import type { NotificationWithPayload } from './types.js';

export function notificationView(n: NotificationWithPayload) {
  const chat = n.entity === 'chat';
  return {
    kind: 'user.notification',
    id: n.id,
    userid: n.userId,
    notificationtype: n.type,
    eventtype: n.eventType,
    isread: n.read,
    whenread: isoOrNull(n.whenRead),
    fromuserid: n.fromUserId,
    chatroomid: chat ? n.containerId : null,
    chatroomcustomid: chat ? n.containerCustomId : null,
    chateventid: chat ? n.itemId : null,
    commentconversationid: chat ? null : n.containerId,
    commentconversationcustomid: chat ? null : n.containerCustomId,
    commentid: chat ? null : n.itemId,
    payload: n.payload,
    added: n.added.toISOString(),
    ts: n.added.getTime(),
  };
}
