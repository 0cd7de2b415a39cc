import type { Shape } from '../realtime/compact/shapes.js';
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

/** user.notification in compact frames (docs/realtime.md); its payload (an event or a comment) is written by its own shape. */
export const NOTIFICATION_SHAPE: Shape = {
  fields: [
    ['id', 'i', 'uuid'],
    ['userid', 'u', 'topic'],
    ['notificationtype', 'nt'],
    ['eventtype', 'e'],
    ['isread', 'r', 'eq', false],
    ['whenread', 'wr', 'eq', null],
    ['fromuserid', 'f', 'eq', null],
    ['chatroomid', 'cr', 'eq', null],
    ['chatroomcustomid', 'cc', 'eq', null],
    ['chateventid', 'ce', 'eq', null],
    ['commentconversationid', 'cv', 'eq', null],
    ['commentconversationcustomid', 'cvc', 'eq', null],
    ['commentid', 'cm', 'eq', null],
    ['payload', 'pl', 'obj', null],
    ['added', 'a', 'time'],
    ['ts', 't', 'epoch', 'added'],
  ],
};
