import type { Application } from '../../../apps/types.js';
import type { Db } from '../../../db/client.js';
import { notFound } from '../../../errors.js';
import type { ChatContext, RoomEffectKind, RoomView } from '../../context.js';
import type { ReadBatcher } from '../../../db/read-batcher.js';
import { type RoomWithModeration, roomsWithModeration } from '../store.js';

/** A room's moderated view, and when it changes by itself (Date.now() time the first effect in it ends; Infinity when none does). */
export interface ModeratedRoomView {
  view: RoomView;
  until: number;
}

/**
 * The app's room `roomId` as the database has it now (a write just made included: its counters
 * too) with who is bounced, flagged, shadow banned, muted and reported in it: one statement; 404
 * when there is no such room.
 */
export async function moderatedRoomView(chat: Pick<ChatContext, 'rooms'>, db: Db, app: Application, roomId: string): Promise<RoomView> {
  const [found] = await roomsWithModeration(db, [roomId]);
  return detailsOf(chat, app, roomId, found).view;
}

/**
 * The app's room `roomId` with its moderation lists, read together (with the other rooms asked
 * for at the same moment, in one statement), and when they change by itself; 404 when there is no such room.
 */
export async function moderatedRoomDetails(chat: Pick<ChatContext, 'rooms'>, reads: ReadBatcher<string, RoomWithModeration>, app: Application, roomId: string): Promise<ModeratedRoomView> {
  return detailsOf(chat, app, roomId, await reads.get(roomId));
}

function detailsOf(chat: Pick<ChatContext, 'rooms'>, app: Application, roomId: string, found: RoomWithModeration | undefined): ModeratedRoomView {
  if (found?.room.appId !== app.id) throw notFound(`Room ${roomId} not found.`);
  const { room, effects, reports } = found;
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
