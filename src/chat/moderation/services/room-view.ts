import type { Application } from '../../../apps/types.js';
import type { Db } from '../../../db/client.js';
import type { ChatContext, Room, RoomEffectKind, RoomView } from '../../context.js';
import { listRoomUserReports } from '../store.js';

/** The chat.room object with who is bounced, flagged, shadow banned, muted and reported in it, as the database has them now. */
export async function moderatedRoomView(chat: Pick<ChatContext, 'rooms' | 'effects'>, db: Db, app: Application, room: Room): Promise<RoomView> {
  const [effects, reports] = await Promise.all([chat.effects.fresh(app, room.id), listRoomUserReports(db, app.id, room.id)]);
  const having = (kind: RoomEffectKind) => effects.filter((e) => e.effect === kind).map((e) => e.userId);
  return chat.rooms.view(room, {
    bouncedusers: having('bounce'),
    flaggedusers: having('flag'),
    shadowbannedusers: having('shadowban'),
    mutedusers: having('mute'),
    reportedusers: reports.map((r) => ({ userid: r.userId, reportedbyuserid: r.reportedBy, reason: r.reportType, added: r.added.toISOString() })),
  });
}
