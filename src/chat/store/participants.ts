import { and, asc, eq, gt, sql } from 'drizzle-orm';
import { textArray, textArrayLiteral } from '../../db/arrays.js';
import { preparedRows, rows, statementOnce, type Queryable } from '../../db/client.js';
import { chatParticipants, chatRoomPermissions, chatRooms, chatSubscriptions } from '../../db/schema/chat.js';
import { newId } from '../../ids.js';
import type { Participant, Subscription } from '../types.js';
import { createdUser, INSERTING_USERS, newUserValues, type NewUserRow } from '../../users/store.js';
import type { User } from '../../users/types.js';

/** Starts (or refreshes) a session; true when the user was not in the room before. */
export async function upsertParticipant(q: Queryable, appId: string, roomId: string, userId: string, now: Date): Promise<boolean> {
  const inserted = await q.insert(chatParticipants).values({ appId, roomId, userId, added: now, lastSeen: now }).onConflictDoNothing().returning({ userId: chatParticipants.userId });
  if (inserted.length > 0) return true;
  await q
    .update(chatParticipants)
    .set({ lastSeen: now })
    .where(and(eq(chatParticipants.roomId, roomId), eq(chatParticipants.userId, userId)));
  return false;
}

export async function upsertSubscription(q: Queryable, appId: string, roomId: string, userId: string, now: Date): Promise<Subscription> {
  const [row] = await q
    .insert(chatSubscriptions)
    .values({ id: newId(), appId, roomId, userId, added: now, updated: now })
    .onConflictDoUpdate({ target: [chatSubscriptions.roomId, chatSubscriptions.userId], set: { updated: now } })
    .returning();
  return row as Subscription;
}

export async function findParticipant(q: Queryable, roomId: string, userId: string): Promise<Participant | undefined> {
  const [row] = await q
    .select()
    .from(chatParticipants)
    .where(and(eq(chatParticipants.roomId, roomId), eq(chatParticipants.userId, userId)));
  return row;
}

export async function listParticipants(q: Queryable, roomId: string, afterUserId: string, limit: number): Promise<Participant[]> {
  return q
    .select()
    .from(chatParticipants)
    .where(and(eq(chatParticipants.roomId, roomId), gt(chatParticipants.userId, afterUserId)))
    .orderBy(asc(chatParticipants.userId))
    .limit(limit);
}

/** Refreshes the sessions of users seen active (commands) since the last flush, in one statement. */
export async function touchParticipants(q: Queryable, seen: { roomId: string; userId: string }[], now: Date): Promise<void> {
  if (seen.length === 0) return;
  await q.execute(sql`
    update chat_participants p set last_seen = ${now}
    from unnest(${textArray(seen.map((s) => s.roomId))}::text[], ${textArray(seen.map((s) => s.userId))}::text[]) as a(room_id, user_id)
    where p.room_id = a.room_id and p.user_id = a.user_id`);
}

/** Removes up to `limit` sessions idle since `before` in rooms that expire sessions; returns them. */
export async function expireIdle(q: Queryable, before: Date, limit: number): Promise<{ appId: string; roomId: string; userId: string }[]> {
  return rows<{ appId: string; roomId: string; userId: string }>(
    q,
    sql`
    delete from chat_participants p
    where (p.room_id, p.user_id) in (
      select cp.room_id, cp.user_id from chat_participants cp join chat_rooms r on r.id = cp.room_id
      where r.enable_auto_expire_sessions and cp.last_seen < ${before}
      order by cp.last_seen limit ${limit}
    )
    returning p.app_id as "appId", p.room_id as "roomId", p.user_id as "userId"`,
  );
}

export async function listSubscriptions(q: Queryable, appId: string, userId: string, afterRoomId: string, limit: number) {
  return q
    .select({ sub: chatSubscriptions, room: chatRooms })
    .from(chatSubscriptions)
    .innerJoin(chatRooms, eq(chatRooms.id, chatSubscriptions.roomId))
    .where(and(eq(chatSubscriptions.appId, appId), eq(chatSubscriptions.userId, userId), gt(chatSubscriptions.roomId, afterRoomId)))
    .orderBy(asc(chatSubscriptions.roomId))
    .limit(limit);
}

export async function setPermission(q: Queryable, appId: string, roomId: string, userId: string, allow: boolean): Promise<void> {
  await q
    .insert(chatRoomPermissions)
    .values({ appId, roomId, userId, allow })
    .onConflictDoUpdate({ target: [chatRoomPermissions.roomId, chatRoomPermissions.userId], set: { allow } });
}

export async function isAllowed(q: Queryable, roomId: string, userId: string): Promise<boolean> {
  const [row] = await q
    .select({ allow: chatRoomPermissions.allow })
    .from(chatRoomPermissions)
    .where(and(eq(chatRoomPermissions.roomId, roomId), eq(chatRoomPermissions.userId, userId)));
  return row?.allow === true;
}

/** Everything of a room's people (participants, subscriptions, permissions), when the room goes. */
export async function deleteRoomPeople(q: Queryable, roomId: string): Promise<void> {
  await q.delete(chatParticipants).where(eq(chatParticipants.roomId, roomId));
  await q.delete(chatSubscriptions).where(eq(chatSubscriptions.roomId, roomId));
  await q.delete(chatRoomPermissions).where(eq(chatRoomPermissions.roomId, roomId));
}

export interface Arrival {
  appId: string;
  roomId: string;
  userId: string;
  /** The subscription's id, used when it is new. */
  subscriptionId: string;
}

/** A room's counters as a batch of arrivals or departures left them. */
export interface RoomCounters {
  inRoom: number;
  lastMessageAt: Date | null;
  /** The feed's head as the statement saw it: every event committed before the statement began is at or below it. */
  lastSeq: number;
}

export interface Arrived {
  entered: boolean;
  subscription: Subscription;
  room: RoomCounters;
  /** The room's events revision as the statement saw it (with `room.lastSeq`, what a page of its events read now would show). */
  eventsRevision: number;
}

const at = (value: unknown): Date => (value instanceof Date ? value : new Date(String(value)));
const atOrNull = (value: unknown): Date | null => (value === null || value === undefined ? null : at(value));

/** The writes of arrivals `a` (app_id, room_id, user_id, sub_id, in key order): sessions (`p`), subscriptions (`s`), each room's `in_room` moved once (`c`); placeholder `now`. */
const ARRIVAL_WRITES = sql`p as (
      insert into chat_participants (app_id, room_id, user_id, added, last_seen)
      select app_id, room_id, user_id, ${sql.placeholder('now')}::timestamptz, ${sql.placeholder('now')}::timestamptz from a
      on conflict (room_id, user_id) do update set last_seen = excluded.last_seen
      returning room_id, user_id, xmax = 0 as entered
    ), s as (
      insert into chat_subscriptions (id, app_id, room_id, user_id, added, updated)
      select sub_id, app_id, room_id, user_id, ${sql.placeholder('now')}::timestamptz, ${sql.placeholder('now')}::timestamptz from a
      on conflict (room_id, user_id) do update set updated = excluded.updated
      returning id, app_id, room_id, user_id, persist, added, updated
    ), c as (
      update chat_rooms r set in_room = greatest(r.in_room + d.n, 0)
      from (select room_id, count(*)::int as n from p where entered group by room_id) d
      where r.id = d.room_id
      returning r.id, r.in_room
    )`;

/** The placeholders of arrivals (`arrivalAppIds` …) and of `now`. */
const arrivalValues = (arrivals: Arrival[], now: Date) => ({
  arrivalAppIds: textArrayLiteral(arrivals.map((a) => a.appId)),
  arrivalRoomIds: textArrayLiteral(arrivals.map((a) => a.roomId)),
  arrivalUserIds: textArrayLiteral(arrivals.map((a) => a.userId)),
  arrivalSubIds: textArrayLiteral(arrivals.map((a) => a.subscriptionId)),
  now: now.toISOString(),
});
const ARRIVALS = sql`unnest(${sql.placeholder('arrivalAppIds')}::text[], ${sql.placeholder('arrivalRoomIds')}::text[], ${sql.placeholder('arrivalUserIds')}::text[], ${sql.placeholder('arrivalSubIds')}::text[])`;

/** What each arrival's row carries back (its subscription, whether it entered, the room's counters), named apart from a user's columns. */
const ARRIVED_COLUMNS = sql.raw(
  `s.id as sub_id, s.app_id as sub_app_id, s.room_id as sub_room_id, s.user_id as sub_user_id, s.persist as sub_persist, s.added as sub_added, s.updated as sub_updated, p.entered as sub_entered, coalesce(c.in_room, r.in_room) as room_in_room, r.last_message_at as room_last_message_at, r.last_seq as room_last_seq, r.events_revision as room_events_revision`,
);
const ARRIVED_FROM = sql.raw(`s join p on p.room_id = s.room_id and p.user_id = s.user_id
    left join chat_rooms r on r.id = s.room_id
    left join c on c.id = s.room_id`);

function arrivedOf(f: Record<string, unknown>): Arrived {
  const subscription: Subscription = {
    id: String(f['sub_id']),
    appId: String(f['sub_app_id']),
    roomId: String(f['sub_room_id']),
    userId: String(f['sub_user_id']),
    persist: f['sub_persist'] === true,
    added: at(f['sub_added']),
    updated: at(f['sub_updated']),
  };
  const room = { inRoom: Number(f['room_in_room'] ?? 0), lastMessageAt: atOrNull(f['room_last_message_at']), lastSeq: Number(f['room_last_seq'] ?? 0) };
  return { entered: f['sub_entered'] === true, subscription, room, eventsRevision: Number(f['room_events_revision'] ?? 0) };
}

const ARRIVE_MANY = statementOnce<Record<string, unknown>>(
  'chat_arrive_many',
  sql`with a as (
      select * from ${ARRIVALS} as a(app_id, room_id, user_id, sub_id)
      order by room_id, user_id
    ), ${ARRIVAL_WRITES}
    select ${ARRIVED_COLUMNS} from ${ARRIVED_FROM}`,
);

/**
 * Starts or refreshes the sessions and subscriptions of distinct (room, user) pairs in one
 * statement, and moves each room's `in_room` once by the number that entered (`xmax = 0`: the
 * row was inserted, not updated). Rows are taken in key order, so batches of several nodes
 * queue instead of deadlocking. Returns, per arrival in order, what it did and the room's counters.
 */
export async function arriveMany(q: Queryable, arrivals: Arrival[], now: Date): Promise<Arrived[]> {
  const found = await ARRIVE_MANY(q, arrivalValues(arrivals, now));
  const byKey = new Map(found.map((f) => [`${String(f['sub_room_id'])}/${String(f['sub_user_id'])}`, arrivedOf(f)]));
  return arrivals.map((a) => byKey.get(`${a.roomId}/${a.userId}`) as Arrived);
}

const ARRIVE_NEW_MANY = statementOnce<Record<string, unknown>>(
  'chat_arrive_new_many',
  sql`with n as (${INSERTING_USERS}), a as (
      select i.app_id, i.room_id, i.user_id, i.sub_id
      from unnest(${sql.placeholder('arrivalAppIds')}::text[], ${sql.placeholder('arrivalRoomIds')}::text[], ${sql.placeholder('arrivalUserIds')}::text[], ${sql.placeholder('arrivalSubIds')}::text[], ${sql.placeholder('arrivalPools')}::text[]) as i(app_id, room_id, user_id, sub_id, pool)
      join n on n.pool = i.pool and n."userId" = i.user_id
      order by i.room_id, i.user_id
    ), ${ARRIVAL_WRITES}
    select ${ARRIVED_COLUMNS} from n join (${ARRIVED_FROM}) on s.user_id = n."userId"`,
);

/** An arrival of a user new to the pool, created by the same statement. */
export interface Newcomer extends Arrival {
  user: NewUserRow;
}

/**
 * `arriveMany` for users new to the pool, created in the same statement: a crowd of new fans
 * costs one statement per batch. A newcomer whose id or handle turned out taken is neither
 * created nor arrived (undefined). Distinct (room, user) pairs, each user with one row.
 */
export async function arriveNewMany(q: Queryable, newcomers: Newcomer[], now: Date): Promise<({ user: User; arrived: Arrived } | undefined)[]> {
  const users = [...new Map(newcomers.map((c) => [`${c.user.pool}\u0000${c.userId}`, c.user])).values()];
  const found = await ARRIVE_NEW_MANY(q, { ...newUserValues(users, now), ...arrivalValues(newcomers, now), arrivalPools: textArrayLiteral(newcomers.map((c) => c.user.pool)) });
  const byKey = new Map(found.map((f) => [`${String(f['sub_room_id'])}/${String(f['sub_user_id'])}`, arrivedOf(f)]));
  return newcomers.map((c) => {
    const arrived = byKey.get(`${c.roomId}/${c.userId}`);
    return arrived === undefined ? undefined : { user: createdUser(c.user, now), arrived };
  });
}

/**
 * Ends the sessions and subscriptions of distinct (room, user) pairs in one statement, each
 * room's `in_room` moved once; per pair, the room's counters as the statement left them when the
 * user was in the room, else undefined.
 */
export async function departMany(q: Queryable, departures: { roomId: string; userId: string }[]): Promise<(RoomCounters | undefined)[]> {
  const found = await preparedRows<Record<string, unknown>>(
    q,
    'chat_depart_many',
    sql`with a as (
      select * from unnest(${textArray(departures.map((d) => d.roomId))}::text[], ${textArray(departures.map((d) => d.userId))}::text[]) as a(room_id, user_id)
      order by room_id, user_id
    ), p as (
      delete from chat_participants x using a where x.room_id = a.room_id and x.user_id = a.user_id returning x.room_id, x.user_id
    ), s as (
      delete from chat_subscriptions x using a where x.room_id = a.room_id and x.user_id = a.user_id
    ), c as (
      update chat_rooms r set in_room = greatest(r.in_room - d.n, 0)
      from (select room_id, count(*)::int as n from p group by room_id) d
      where r.id = d.room_id
      returning r.id, r.in_room, r.last_message_at, r.last_seq
    )
    select p.room_id, p.user_id, c.in_room, c.last_message_at, c.last_seq from p left join c on c.id = p.room_id`,
  );
  const gone = new Map(
    found.map((f) => [`${String(f['room_id'])}/${String(f['user_id'])}`, { inRoom: Number(f['in_room'] ?? 0), lastMessageAt: atOrNull(f['last_message_at']), lastSeq: Number(f['last_seq'] ?? 0) }]),
  );
  return departures.map((d) => gone.get(`${d.roomId}/${d.userId}`));
}
