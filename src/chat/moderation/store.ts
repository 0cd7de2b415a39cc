import { and, asc, eq, gt, gte, inArray, isNull, or, sql } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import { textArrayLiteral, plannedOnce } from '../../db/arrays.js';
import { statementOnce, type Queryable } from '../../db/client.js';
import { chatEventReports, chatEvents, chatParticipants, chatRoomEffects, chatRooms, chatRoomUserReports, users } from '../../db/schema/index.js';
import { tableRows } from '../../db/table-rows.js';
import type { User } from '../../users/types.js';
import type { ChatEvent, Room, RoomEffect } from '../context.js';
import { EFFECT_ROWS, IN_FORCE } from '../store/effects.js';
import { ROOM_ROWS } from '../store/rooms.js';

/** Moderation states a moderator can decide on: held by pre-moderation, or reported up to maxreports. */
const QUEUED = ['pending', 'flagged'] as const;

export async function hasReportedEvent(q: Queryable, eventId: string, userId: string): Promise<boolean> {
  const found = await q
    .select({ userId: chatEventReports.userId })
    .from(chatEventReports)
    .where(and(eq(chatEventReports.eventId, eventId), eq(chatEventReports.userId, userId)));
  return found.length > 0;
}

export interface EventReport {
  appId: string;
  eventId: string;
  userId: string;
  reportType: string;
}

/**
 * Records one reporter's report of an event, once. A message nobody has decided on yet ('na')
 * leaves the stream (inactive) and, at `maxReports` reports, enters the queue as 'flagged'.
 */
export async function recordEventReport(q: Queryable, report: EventReport, maxReports: number): Promise<void> {
  const inserted = await q.insert(chatEventReports).values(report).onConflictDoNothing().returning({ userId: chatEventReports.userId });
  if (inserted.length === 0) return;
  const entry = JSON.stringify([{ userid: report.userId, reason: report.reportType }]);
  await q
    .update(chatEvents)
    .set({
      reports: sql`${chatEvents.reports} || ${entry}::jsonb`,
      reportCount: sql`${chatEvents.reportCount} + 1`,
      active: sql`case when ${chatEvents.moderation} = 'na' then false else ${chatEvents.active} end`,
      moderation: sql`case when ${chatEvents.moderation} = 'na' and ${chatEvents.reportCount} + 1 >= ${maxReports} then 'flagged' else ${chatEvents.moderation} end`,
      whenModified: new Date(),
    })
    .where(eq(chatEvents.id, report.eventId));
}

export async function findAppEvent(q: Queryable, appId: string, eventId: string): Promise<ChatEvent | undefined> {
  const [row] = await q
    .select()
    .from(chatEvents)
    .where(and(eq(chatEvents.appId, appId), eq(chatEvents.id, eventId)));
  return row;
}

/** Queued, or reported out of the stream without reaching maxreports: a moderator may decide. */
const moderatable = or(inArray(chatEvents.moderation, [...QUEUED]), and(eq(chatEvents.moderation, 'na'), eq(chatEvents.active, false), gt(chatEvents.reportCount, 0)));

/**
 * Applies a moderator's decision to a moderatable event. An approved event leaves its old feed
 * position (seq null) so that publishing gives it a new one and pollers see it; a rejected one
 * stays hidden. Undefined when the event is not (or no longer) moderatable.
 */
export async function decideEvent(q: Queryable, appId: string, eventId: string, approve: boolean): Promise<ChatEvent | undefined> {
  const [row] = await q
    .update(chatEvents)
    .set(approve ? { moderation: 'approved', active: true, seq: null, whenModified: new Date() } : { moderation: 'rejected', active: false, whenModified: new Date() })
    .where(and(eq(chatEvents.appId, appId), eq(chatEvents.id, eventId), moderatable))
    .returning();
  return row;
}

/** The moderation queue, oldest first (ids are time-ordered), after the event id `after`. */
export async function listQueue(q: Queryable, appId: string, roomId: string | undefined, after: string, limit: number): Promise<ChatEvent[]> {
  return q
    .select()
    .from(chatEvents)
    .where(and(eq(chatEvents.appId, appId), inArray(chatEvents.moderation, [...QUEUED]), roomId === undefined ? undefined : eq(chatEvents.roomId, roomId), gt(chatEvents.id, after)))
    .orderBy(asc(chatEvents.id))
    .limit(limit);
}

export type RoomUserReport = typeof chatRoomUserReports.$inferSelect;

/** False when this reporter had already reported the user in this room. */
export async function insertRoomUserReport(q: Queryable, row: typeof chatRoomUserReports.$inferInsert): Promise<boolean> {
  const inserted = await q.insert(chatRoomUserReports).values(row).onConflictDoNothing().returning({ id: chatRoomUserReports.id });
  return inserted.length > 0;
}

/** Reports of the user in the room within the trailing window, by the database's clock. */
export async function countRecentRoomUserReports(q: Queryable, appId: string, roomId: string, userId: string, windowSeconds: number): Promise<number> {
  const [row] = await q
    .select({ n: sql<number>`count(*)::int` })
    .from(chatRoomUserReports)
    .where(
      and(
        eq(chatRoomUserReports.appId, appId),
        eq(chatRoomUserReports.roomId, roomId),
        eq(chatRoomUserReports.userId, userId),
        gte(chatRoomUserReports.added, sql`now() - make_interval(secs => ${windowSeconds})`),
      ),
    );
  return row?.n ?? 0;
}

const REPORT_ROWS = tableRows(chatRoomUserReports);
const r = chatRoomUserReports;
const e = chatRoomEffects;
/** Each room with its effects in force and its user reports (oldest first) as JSON, in columns no room field is named after. */
const ROOMS_WITH_MODERATION = statementOnce<Record<string, unknown> & { withEffects: Record<string, unknown>[]; withReports: Record<string, unknown>[] }>(
  'chat_rooms_with_moderation',
  sql`select ${ROOM_ROWS.list},
      (select coalesce(jsonb_agg(to_jsonb(${e})), '[]') from ${e} where ${e.roomId} = ${chatRooms.id} and ${IN_FORCE}) as "withEffects",
      (select coalesce(jsonb_agg(to_jsonb(${r}) order by ${r.added}, ${r.id}), '[]') from ${r} where ${r.roomId} = ${chatRooms.id}) as "withReports"
    from ${chatRooms} where ${chatRooms.id} = any(${plannedOnce('roomIds', 'text[]')})`,
);

/** A room with the effects in force in it and its user reports (oldest first): what its details show. */
export interface RoomWithModeration {
  room: Room;
  effects: RoomEffect[];
  reports: RoomUserReport[];
}

/** These rooms (those there are, whatever their app), each with its effects in force and its user reports (oldest first): one named statement. */
export async function roomsWithModeration(q: Queryable, roomIds: string[]): Promise<RoomWithModeration[]> {
  return (await ROOMS_WITH_MODERATION(q, { roomIds: textArrayLiteral(roomIds) })).map(({ withEffects, withReports, ...room }) => ({
    room: ROOM_ROWS.of(room),
    effects: withEffects.map(EFFECT_ROWS.ofJson),
    reports: withReports.map(REPORT_ROWS.ofJson),
  }));
}

export async function deleteRoomUserReports(q: Queryable, appId: string, roomId: string, userId: string): Promise<void> {
  await q.delete(chatRoomUserReports).where(and(eq(chatRoomUserReports.appId, appId), eq(chatRoomUserReports.roomId, roomId), eq(chatRoomUserReports.userId, userId)));
}

const inForce = (on: AnyPgColumn, until: AnyPgColumn) => and(eq(on, true), or(isNull(until), gt(until, sql`now()`)));

/**
 * Users of the pool under a global ban, mute or shadow ban who are in the room or named in
 * `alsoUserIds` (those with room effects), in one query.
 */
export async function globallyAffectedUsers(q: Queryable, pool: string, roomId: string, alsoUserIds: string[]): Promise<User[]> {
  const inRoom = q.select({ userId: chatParticipants.userId }).from(chatParticipants).where(eq(chatParticipants.roomId, roomId));
  return q
    .select()
    .from(users)
    .where(
      and(
        eq(users.pool, pool),
        alsoUserIds.length === 0 ? inArray(users.userId, inRoom) : or(inArray(users.userId, inRoom), inArray(users.userId, alsoUserIds)),
        or(inForce(users.banned, users.bannedUntil), inForce(users.muted, users.mutedUntil), inForce(users.shadowBanned, users.shadowBannedUntil)),
      ),
    );
}
