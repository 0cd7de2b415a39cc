import type { Application } from '../../../apps/types.js';
import type { Db } from '../../../db/client.js';
import type { ChatContext, Room, RoomEffectKind, RoomView } from '../../context.js';
import { listRoomUserReports } from '../store.js';

/** A room's moderated view, and when it changes by itself (Date.now() time the first effect in it ends; Infinity when none does). */
export interface ModeratedRoomView {
  view: RoomView;
  until: number;
}

/** The chat.room object with who is bounced, flagged, shadow banned, muted and reported in it, as the database has them now. */
export async function moderatedRoomView(chat: Pick<ChatContext, 'rooms' | 'effects'>, db: Db, app: Application, room: Room): Promise<RoomView> {
  return (await moderatedRoomDetails(chat, db, app, room)).view;
}

/** `moderatedRoomView`, and when it changes by itself. */
export async function moderatedRoomDetails(chat: Pick<ChatContext, 'rooms' | 'effects'>, db: Db, app: Application, room: Room): Promise<ModeratedRoomView> {
  const [effects, reports] = await Promise.all([chat.effects.fresh(app, room.id), listRoomUserReports(db, app.id, room.id)]);
  const having = (kind: RoomEffectKind) => effects.filter((e) => e.effect === kind).map((e) => e.userId);
  const view = chat.rooms.view(room, {
    bouncedusers: having('bounce'),
    flaggedusers: having('flag'),
    shadowbannedusers: having('shadowban'),
    mutedusers: having('mute'),
    reportedusers: reports.map((r) => ({ userid: r.userId, reportedbyuserid: r.reportedBy, reason: r.reportType, added: r.added.toISOString() })),
  });
  return { view, until: effects.reduce((soonest, e) => Math.min(soonest, e.expires?.getTime() ?? Number.POSITIVE_INFINITY), Number.POSITIVE_INFINITY) };
}
