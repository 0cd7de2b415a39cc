import type { Application } from '../../../apps/types.js';
import { notFound } from '../../../errors.js';
import type { ChatContext, RoomEffectKind, RoomView } from '../../context.js';
import type { ReadBatcher } from '../../../db/read-batcher.js';
import type { RoomWithModeration } from '../store.js';

/** A room's moderated view, and when it changes by itself (Date.now() time the first effect in it ends; Infinity when none does). */
export interface ModeratedRoomView {
  view: RoomView;
  until: number;
}

/** The app's room with its moderation lists, and when they change by itself; 404 when there is no such room. */
export type RoomDetails = (app: Application, roomId: string) => Promise<ModeratedRoomView>;

/**
 * Room details as the database has them when the read starts (after the caller asked, so a
 * moderation write just made is in them, its counters too), read with the other rooms asked for
 * at the same moment in one statement (`reads`, over roomsWithModeration).
 */
export function roomDetailsFrom(chat: Pick<ChatContext, 'rooms'>, reads: ReadBatcher<string, RoomWithModeration>): RoomDetails {
  return async (app, roomId) => {
    const found = await reads.get(roomId);
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
  };
}
