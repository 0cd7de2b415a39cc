import { and, asc, desc, eq, gt, inArray, isNotNull, isNull, lt, lte, ne, or, sql, type SQL } from 'drizzle-orm';
import { deletedCount, rows, statementOnce, type Queryable } from '../../db/client.js';
import { tableRows } from '../../db/table-rows.js';
import { chatEvents } from '../../db/schema/chat.js';
import { containing } from '../../db/like.js';
import { feedHead } from './rooms.js';
import { type ChatEvent, DISPLAYABLE_TYPES } from '../types.js';
import { intArrayLiteral, textArrayLiteral, plannedOnce } from '../../db/arrays.js';

const EVENT_ROWS = tableRows(chatEvents);

/** Events as a statement returned them with `to_jsonb` (a JSON array of rows). */
export const eventsOfJson = (rows: Record<string, unknown>[]): ChatEvent[] => rows.map(EVENT_ROWS.ofJson);
const EVENTS_BY_ID = statementOnce<Record<string, unknown>>('chat_events_by_id', sql`select ${EVENT_ROWS.list} from ${chatEvents} where ${chatEvents.id} = any(${plannedOnce('ids', 'text[]')})`);

type NewEvent = typeof chatEvents.$inferInsert;
export type EventPatch = Partial<Omit<NewEvent, 'id' | 'appId' | 'roomId' | 'seq'>>;

export async function findEvent(q: Queryable, appId: string, roomId: string, id: string): Promise<ChatEvent | undefined> {
  const [row] = await q
    .select()
    .from(chatEvents)
    .where(and(eq(chatEvents.appId, appId), eq(chatEvents.roomId, roomId), eq(chatEvents.id, id)));
  return row;
}

/** A named statement: a batch of reactions reads its targets' rows with it for their views. */
export async function findEventsById(q: Queryable, ids: string[]): Promise<ChatEvent[]> {
  if (ids.length === 0) return [];
  return (await EVENTS_BY_ID(q, { ids: textArrayLiteral(ids) })).map(EVENT_ROWS.of);
}

export async function updateEvent(q: Queryable, id: string, patch: EventPatch): Promise<ChatEvent | undefined> {
  const [row] = await q
    .update(chatEvents)
    .set({ ...patch, whenModified: new Date() })
    .where(eq(chatEvents.id, id))
    .returning();
  return row;
}

/** One more reply to the event. */
export async function countReply(q: Queryable, id: string): Promise<void> {
  await q
    .update(chatEvents)
    .set({ replyCount: sql`${chatEvents.replyCount} + 1` })
    .where(eq(chatEvents.id, id));
}

export async function deleteEvent(q: Queryable, id: string): Promise<boolean> {
  const gone = await q.delete(chatEvents).where(eq(chatEvents.id, id)).returning({ id: chatEvents.id });
  return gone.length > 0;
}

/** Locks the waiting (seq null) events among `ids`, oldest first. */
export async function lockWaiting(q: Queryable, roomId: string, ids: string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const found = await rows<{ id: string }>(q, sql`select id from chat_events where room_id = ${roomId} and seq is null and id in ${ids} order by id for update`);
  return found.map((r) => r.id);
}

/** Gives the events their feed positions and clears their release time. */
export async function assignSeqs(q: Queryable, assigned: { id: string; seq: number }[]): Promise<ChatEvent[]> {
  if (assigned.length === 0) return [];
  const values = sql.join(
    assigned.map((a) => sql`(${a.id}::text, ${a.seq}::bigint)`),
    sql`, `,
  );
  await q.execute(sql`update chat_events e set seq = v.seq, release_at = null from (values ${values}) as v(id, seq) where e.id = v.id`);
  return findEventsById(
    q,
    assigned.map((a) => a.id),
  );
}

export interface FeedSlice {
  lastSeq: number;
  events: ChatEvent[];
}

/**
 * Events after `afterSeq` up to the room's committed last seq. The head is read first: every
 * event at or below it committed with it, so the second read sees them all. Shadow-banned events of others than `viewer` are left out.
 */
export async function feedAfter(q: Queryable, roomId: string, afterSeq: number, limit: number, viewer: string | undefined): Promise<FeedSlice> {
  const last = (await feedHead(q, roomId)).seq;
  if (last <= afterSeq) return { lastSeq: last, events: [] };
  const events = await q
    .select()
    .from(chatEvents)
    .where(and(eq(chatEvents.roomId, roomId), gt(chatEvents.seq, afterSeq), lte(chatEvents.seq, last), visibleTo(viewer)))
    .orderBy(asc(chatEvents.seq))
    .limit(limit);
  return { lastSeq: last, events };
}

/** Feed events everyone may see with seq in (`afterSeq`, `upToSeq`], oldest first: one block of a shared catch-up. */
export async function feedRange(q: Queryable, roomId: string, afterSeq: number, upToSeq: number): Promise<ChatEvent[]> {
  return q
    .select()
    .from(chatEvents)
    .where(and(eq(chatEvents.roomId, roomId), gt(chatEvents.seq, afterSeq), lte(chatEvents.seq, upToSeq), visibleTo(undefined)))
    .orderBy(asc(chatEvents.seq));
}

/** The newest `count` feed events up to the room's last seq (for a memory ring), oldest first. */
export async function feedTail(q: Queryable, roomId: string, count: number): Promise<FeedSlice> {
  const last = (await feedHead(q, roomId)).seq;
  const events = await q
    .select()
    .from(chatEvents)
    .where(and(eq(chatEvents.roomId, roomId), gt(chatEvents.seq, last - count), lte(chatEvents.seq, last)))
    .orderBy(asc(chatEvents.seq));
  return { lastSeq: last, events };
}

const visibleTo = (viewer: string | undefined) => (viewer === undefined ? eq(chatEvents.shadowban, false) : or(eq(chatEvents.shadowban, false), eq(chatEvents.userId, viewer)));

/** Displayable to their author at least: shown unless shadow banned. */
const shown = and(inArray(chatEvents.eventType, [...DISPLAYABLE_TYPES]), eq(chatEvents.active, true), eq(chatEvents.deleted, false), isNotNull(chatEvents.seq), ne(chatEvents.moderation, 'rejected'));

/** Displayable events (api-surface.md) as a SQL condition. */
export const displayable = (viewer: string | undefined) => and(shown, visibleTo(viewer));

/**
 * `shown`, shadow banned or not, with its constants written into the text, for named statements:
 * as parameters, the generic plan cannot tell how few rows a room's page reads (it costs a whole
 * room's scan per room, the custom plan a twentieth of it), so Postgres planned the statement
 * again on every call.
 */
const shownInText = (shadowban: boolean) => sql`${and(shown, eq(chatEvents.shadowban, shadowban))}`.inlineParams();

/** A condition on the events a list shows. */
export type EventFilter = SQL | undefined;

export const ofType = (eventType: string): EventFilter => eq(chatEvents.eventType, eventType);

/** The user's displayable events, as `viewer` sees them. */
export const byAuthor = (userId: string, viewer: string | undefined): EventFilter => and(eq(chatEvents.userId, userId), displayable(viewer));

/** Feed events matching `where`, newest `limit` before `beforeSeq` (0: from the newest), returned oldest first. */
export async function feedBefore(q: Queryable, roomId: string, where: EventFilter, beforeSeq: number, limit: number): Promise<ChatEvent[]> {
  const found = await q
    .select()
    .from(chatEvents)
    .where(and(eq(chatEvents.roomId, roomId), where, beforeSeq > 0 ? lt(chatEvents.seq, beforeSeq) : isNotNull(chatEvents.seq)))
    .orderBy(desc(chatEvents.seq))
    .limit(limit);
  return found.reverse();
}

const LATEST_DISPLAYABLE = statementOnce<Record<string, unknown>>(
  'chat_latest_displayable',
  sql`select page.* from unnest(${plannedOnce('roomIds', 'text[]')}, ${plannedOnce('beforeSeqs', 'bigint[]')}) as wanted(room, before) cross join lateral (
      select ${EVENT_ROWS.list} from ${chatEvents} where ${and(sql`${chatEvents.roomId} = wanted.room`, shownInText(false), sql`${chatEvents.seq} < wanted.before`)}
      order by ${chatEvents.seq} desc limit ${sql.placeholder('limit')}) as page`,
);

/** A room's feed up to a seq (exclusive), as `latestDisplayable` reads it. */
export interface FeedBefore {
  roomId: string;
  beforeSeq: number;
}

/**
 * `feedBefore` of the displayable events everyone sees, the newest `limit` of each room before its
 * seq, as a named statement for several rooms at once: the page a crowd joining at once shares,
 * and those of rooms opened at the same moment. Oldest first within each room.
 */
export async function latestDisplayable(q: Queryable, rooms: FeedBefore[], limit: number): Promise<ChatEvent[]> {
  const found = await LATEST_DISPLAYABLE(q, { roomIds: textArrayLiteral(rooms.map((r) => r.roomId)), beforeSeqs: intArrayLiteral(rooms.map((r) => r.beforeSeq)), limit });
  return found.map(EVENT_ROWS.of).reverse();
}

const SHADOWED_BETWEEN = statementOnce<Record<string, unknown>>(
  'chat_shadowed_between',
  sql`select page.* from unnest(${plannedOnce('roomIds', 'text[]')}, ${plannedOnce('afterSeqs', 'bigint[]')}, ${plannedOnce('upToSeqs', 'bigint[]')}) as wanted(room, after, up_to)
    cross join lateral (
      select ${EVENT_ROWS.list} from ${chatEvents} where ${and(
        sql`${chatEvents.roomId} = wanted.room`,
        shownInText(true),
        sql`${chatEvents.seq} > wanted.after`,
        sql`${chatEvents.seq} <= wanted.up_to`,
      )} order by ${chatEvents.seq} limit ${sql.placeholder('limit')}) as page`,
);

/** A span of a room's feed: seq in (`afterSeq`, `upToSeq`]. */
export interface FeedSpan {
  roomId: string;
  afterSeq: number;
  upToSeq: number;
}

/**
 * Displayable events only their authors see (shadow banned) within each span, oldest first, at
 * most `limit` of each: what a page shared by everyone lacks for each of those authors. One named
 * statement for every span.
 */
export async function shadowedBetween(q: Queryable, spans: FeedSpan[], limit: number): Promise<ChatEvent[]> {
  const found = await SHADOWED_BETWEEN(q, {
    roomIds: textArrayLiteral(spans.map((s) => s.roomId)),
    afterSeqs: intArrayLiteral(spans.map((s) => s.afterSeq)),
    upToSeqs: intArrayLiteral(spans.map((s) => s.upToSeq)),
    limit,
  });
  return found.map(EVENT_ROWS.of);
}

/** Every stored event of the room (waiting ones too), newest `limit` before id `beforeId`, oldest first. */
export async function historyBefore(q: Queryable, roomId: string, beforeId: string, limit: number): Promise<ChatEvent[]> {
  const found = await q
    .select()
    .from(chatEvents)
    .where(and(eq(chatEvents.roomId, roomId), beforeId === '' ? undefined : lt(chatEvents.id, beforeId)))
    .orderBy(desc(chatEvents.id))
    .limit(limit);
  return found.reverse();
}

/** Displayable events around a timestamp: `older` before it (newest of them) and `newer` from it on. */
export async function aroundTs(q: Queryable, roomId: string, ts: number, older: number, newer: number, viewer: string | undefined): Promise<{ older: ChatEvent[]; newer: ChatEvent[] }> {
  const base = and(eq(chatEvents.roomId, roomId), displayable(viewer));
  const [before, after] = await Promise.all([
    older === 0
      ? []
      : q
          .select()
          .from(chatEvents)
          .where(and(base, lt(chatEvents.ts, ts)))
          .orderBy(desc(chatEvents.ts), desc(chatEvents.seq))
          .limit(older),
    newer === 0
      ? []
      : q
          .select()
          .from(chatEvents)
          .where(and(base, sql`${chatEvents.ts} >= ${ts}`))
          .orderBy(asc(chatEvents.ts), asc(chatEvents.seq))
          .limit(newer),
  ]);
  return { older: before.reverse(), newer: after };
}

export interface SearchFilter {
  roomId: string | undefined;
  userId: string | undefined;
  handlePool: { pool: string; handle: string } | undefined;
  body: string | undefined;
  types: string[] | undefined;
}

/** searchevents: displayable events of the app, keyset-paged by id in either direction. */
export async function searchEvents(q: Queryable, appId: string, f: SearchFilter, cursorId: string, forward: boolean, limit: number): Promise<ChatEvent[]> {
  return q
    .select()
    .from(chatEvents)
    .where(
      and(
        eq(chatEvents.appId, appId),
        displayable(undefined),
        f.roomId === undefined ? undefined : eq(chatEvents.roomId, f.roomId),
        f.userId === undefined ? undefined : eq(chatEvents.userId, f.userId),
        f.handlePool === undefined ? undefined : sql`${chatEvents.userId} in (select user_id from users where pool = ${f.handlePool.pool} and handle_lower = ${f.handlePool.handle.toLowerCase()})`,
        f.body === undefined ? undefined : sql`${chatEvents.body} ilike ${containing(f.body)}`,
        f.types === undefined ? undefined : inArray(chatEvents.eventType, f.types),
        cursorId === '' ? undefined : forward ? gt(chatEvents.id, cursorId) : lt(chatEvents.id, cursorId),
      ),
    )
    .orderBy(forward ? asc(chatEvents.id) : desc(chatEvents.id))
    .limit(limit);
}

export async function deleteRoomEvents(q: Queryable, roomId: string): Promise<number> {
  const gone = await q.delete(chatEvents).where(eq(chatEvents.roomId, roomId)).returning({ id: chatEvents.id });
  return gone.length;
}

/** Deletes the user's events in the room; how many went. */
export async function deleteUserEvents(q: Queryable, appId: string, userId: string, roomId: string): Promise<number> {
  return deletedCount(q, sql`delete from ${chatEvents} where ${and(eq(chatEvents.appId, appId), eq(chatEvents.userId, userId), eq(chatEvents.roomId, roomId))} returning 1`);
}

export async function hasReplies(q: Queryable, id: string): Promise<boolean> {
  const [row] = await q.select({ id: chatEvents.id }).from(chatEvents).where(eq(chatEvents.parentId, id)).limit(1);
  return row !== undefined;
}

/** Delayed events whose release time has passed, per room (for the release sweep). */
export async function dueForRelease(q: Queryable, now: Date): Promise<{ appId: string; roomId: string; id: string }[]> {
  return q
    .select({ appId: chatEvents.appId, roomId: chatEvents.roomId, id: chatEvents.id })
    .from(chatEvents)
    .where(and(isNull(chatEvents.seq), isNotNull(chatEvents.releaseAt), lte(chatEvents.releaseAt, now), eq(chatEvents.moderation, 'na')))
    .limit(1000);
}

export async function roomsWithUserEvents(q: Queryable, appId: string, userId: string): Promise<string[]> {
  const found = await q
    .selectDistinct({ roomId: chatEvents.roomId })
    .from(chatEvents)
    .where(and(eq(chatEvents.appId, appId), eq(chatEvents.userId, userId)));
  return found.map((r) => r.roomId);
}
