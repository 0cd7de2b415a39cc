import { type SQL, sql } from 'drizzle-orm';
import { textArray } from '../../db/arrays.js';
import { rows, type Queryable } from '../../db/client.js';
import type { StoredReaction } from '../types.js';
import { type AppendWith, TargetsGone } from './insert-events.js';
import { type NoticedRoom, noticesWith, type ReactionNotices } from './reaction-notices.js';

/** How much of a reaction a target keeps: users listed per type (REACTION_USERS_SHOWN), distinct types other than like (REACTION_TYPES_MAX). */
export interface ReactionLimits {
  shown: number;
  typesMax: number;
}

/** One user's reaction of one type to a chat event, set (`reacted`) or taken back. */
export interface ReactionChange {
  eventId: string;
  type: string;
  userId: string;
  reacted: boolean;
}

const pairKey = (eventId: string, type: string) => `${eventId}\u0000${type}`;

/**
 * The targets' room, checked on the rows their key found rather than searched: written plainly,
 * Postgres' planner ANDed the whole room's entries of an index on room_id with the key's (10,000
 * entries for each batch of likes in a room of 10,000 events, a quarter of the statement's time).
 * room_id is never null, so the coalesce changes nothing but the plan.
 */
const inRoom = (roomId: string) => sql`coalesce(room_id, ${roomId}) = ${roomId}`;

/** Reactions of types their targets could not take (they list REACTION_TYPES_MAX others): nothing of the batch was written. */
export class ReactionTypesFull extends Error {
  private readonly pairs: Set<string>;

  constructor(refused: ReactionChange[]) {
    super(`Reaction types full: ${refused.map((r) => `${r.eventId} ${r.type}`).join(', ')}`);
    this.pairs = new Set(refused.map((r) => pairKey(r.eventId, r.type)));
  }

  refuses(change: ReactionChange): boolean {
    return this.pairs.has(pairKey(change.eventId, change.type));
  }
}

/**
 * The set reactions of a type new to its target past the target's REACTION_TYPES_MAX, in batch
 * order (a type is free text, and each listed one is an entry every answer and push of the target
 * carries). `like` is always taken: it is the crowd's reaction, written by the likes' statement.
 */
function pastTypesMax(changes: ReactionChange[], stored: Map<string, StoredReaction[]>, typesMax: number): ReactionChange[] {
  const listed = new Map<string, Set<string>>();
  const refused: ReactionChange[] = [];
  for (const c of changes) {
    if (!c.reacted || c.type === 'like') continue;
    let types = listed.get(c.eventId);
    if (types === undefined) {
      types = new Set((stored.get(c.eventId) ?? []).map((r) => r.type).filter((t) => t !== 'like'));
      listed.set(c.eventId, types);
    }
    if (types.has(c.type)) continue;
    if (types.size < typesMax) types.add(c.type);
    else refused.push(c);
  }
  return refused;
}

/**
 * Applies a batch's reaction changes in the caller's transaction, whatever their number, in four
 * statements: lock the target events of room `roomId` (in id order, so batches of several nodes
 * queue instead of deadlocking), add and remove the reaction rows, read the latest `shown` users
 * of each changed reaction, and write each target's summary once: its count moved by the net
 * change (exact, as every writer holds the target's lock) and its latest users. A repeated change
 * is a no-op; of one user's changes to the same reaction in a batch, the last wins. When some
 * target is not in the room (deleted since it was checked), it throws TargetsGone before writing;
 * when some reaction is of a type its target cannot take (see pastTypesMax), ReactionTypesFull.
 */
export async function applyReactions(tx: Queryable, roomId: string, changes: ReactionChange[], limits: ReactionLimits): Promise<void> {
  const eventIds = [...new Set(changes.map((c) => c.eventId))].sort();
  const targets = await rows<{ id: string; reactions: StoredReaction[] }>(
    tx,
    sql`select id, reactions from chat_events where id = any(${textArray(eventIds)}::text[]) and ${inRoom(roomId)} order by id for update`,
  );
  const stored = new Map(targets.map((t) => [t.id, t.reactions]));
  const gone = eventIds.filter((id) => !stored.has(id));
  if (gone.length > 0) throw new TargetsGone(gone);
  const refused = pastTypesMax(changes, stored, limits.typesMax);
  if (refused.length > 0) throw new ReactionTypesFull(refused);
  const deltas = await changeRows(tx, lastChanges(changes));
  if (deltas.length === 0) return;
  const latest = await latestUsers(tx, deltas, limits.shown);
  const summaries = new Map<string, StoredReaction[]>();
  for (const d of deltas) {
    const reactions = summaries.get(d.eventId) ?? (stored.get(d.eventId) as StoredReaction[]).map((r) => ({ ...r }));
    summaries.set(d.eventId, reactions);
    const users = latest.get(pairKey(d.eventId, d.type)) ?? [];
    const entry = reactions.find((r) => r.type === d.type);
    // Un-reacted to zero, an entry stays with no users (as the SDKs expect).
    if (entry === undefined) reactions.push({ type: d.type, count: Math.max(0, d.delta), users });
    else Object.assign(entry, { count: Math.max(0, entry.count + d.delta), users });
  }
  const json = JSON.stringify([...summaries].map(([id, reactions]) => ({ id, reactions, like_count: reactions.find((r) => r.type === 'like')?.count ?? 0 })));
  await tx.execute(sql`
    update chat_events e set reactions = v.reactions, like_count = v.like_count
    from jsonb_to_recordset(${json}::jsonb) as v(id text, reactions jsonb, like_count integer)
    where e.id = v.id`);
}

/** Of one user's changes to the same reaction, the last (a statement may not change a row twice). */
export function lastChanges(changes: ReactionChange[]): ReactionChange[] {
  const last = new Map<string, ReactionChange>();
  for (const c of changes) last.set(`${pairKey(c.eventId, c.type)}\u0000${c.userId}`, c);
  return [...last.values()];
}

/**
 * A reaction's users in the event row: the latest `shown` of `users` (a JSON array), oldest first.
 * `shown` (a setting, the same for the life of the process) is written into the text: as a
 * parameter, the generic plan of the likes' statement would guess the limit and never be chosen.
 */
const latestOf = (users: SQL, shown: number) =>
  sql`(select coalesce(jsonb_agg(q.u order by q.j), '[]'::jsonb) from (select z.u, z.j from jsonb_array_elements(${users}) with ordinality z(u, j) order by z.j desc limit ${sql.raw(String(Math.trunc(shown)))}) q)`;

/**
 * A batch of likes (reactions set, none taken back) to events of `room` as CTEs of the
 * feed append (one statement, see appendToFeed): lock the targets, insert the reaction rows, and
 * write each target's summary from its locked row: counts moved by the rows actually inserted (a
 * repeat inserts none), the listed users those of the row followed by the new ones, the latest
 * `shown` kept. The reservation of feed positions waits for the targets' update, so locks are
 * taken targets first, then the room, as every other writer of both does. When some target is
 * not in the room (deleted since it was checked), nothing is written and `gone` names it. Rows
 * are inserted only for the locked targets: that lock is what chat_reactions has instead of a
 * foreign key (see its schema). The targets come back as the statement left them (`changed`),
 * and the likes' notifications are written with them (see noticesWith).
 */
export function likesWith(room: NoticedRoom, likes: ReactionChange[], shown: number, noticed: ReactionNotices): AppendWith {
  const roomId = room.id;
  // The likes travel as one JSON parameter rather than arrays: the planner sizes an array's unnest
  // by its length, so plans made for each batch would always look cheaper than the generic plan
  // and the statement would be planned again every time (most of its cost). `s` is materialized:
  // inlined, its summary would be built twice per target, once for each column the update sets.
  const json = JSON.stringify(likes.map((c) => [c.eventId, c.type, c.userId]));
  const ctes = sql`a as (
      select x.e->>0 as event_id, x.e->>1 as type, x.e->>2 as user_id, x.k from jsonb_array_elements(${json}::jsonb) with ordinality as x(e, k)
    ), t as (
      select id, reactions, user_id from chat_events where id = any(array(select distinct event_id from a)) and ${inRoom(roomId)} order by id for update
    ), g as (
      select coalesce(array_agg(distinct a.event_id), '{}'::text[]) as ids from a where not exists (select 1 from t where t.id = a.event_id)
    ), i as (
      insert into chat_reactions (event_id, type, user_id)
      select a.event_id, a.type, a.user_id from a join t on t.id = a.event_id where (select cardinality(ids) from g) = 0 order by a.k
      on conflict do nothing
      returning event_id, type, user_id, n
    ), d as (
      select event_id, type, count(*)::int as delta, jsonb_agg(to_jsonb(user_id) order by n) as added, min(n) as first from i group by event_id, type
    ), s as materialized (
      select t.id, coalesce((
        select jsonb_agg(x.entry order by x.ord, x.first) from (
          select case when d.type is null then e.r
            else jsonb_build_object('type', d.type, 'count', (e.r->>'count')::int + d.delta, 'users', ${latestOf(sql`(e.r->'users') || d.added`, shown)}) end as entry,
            e.ord, 0::bigint as first
          from jsonb_array_elements(t.reactions) with ordinality e(r, ord)
          left join d on d.event_id = t.id and d.type = e.r->>'type'
          union all
          select jsonb_build_object('type', d.type, 'count', d.delta, 'users', ${latestOf(sql`d.added`, shown)}), 9223372036854775807, d.first
          from d where d.event_id = t.id and not exists (select 1 from jsonb_array_elements(t.reactions) o where o->>'type' = d.type)
        ) x
      ), '[]'::jsonb) as reactions
      from t where exists (select 1 from d where d.event_id = t.id)
    ), u as (
      update chat_events e set reactions = s.reactions,
        like_count = coalesce((select (l->>'count')::int from jsonb_array_elements(s.reactions) l where l->>'type' = 'like'), 0)
      from s where e.id = s.id
      returning e.*
    )`;
  return {
    name: 'chat_like_and_append',
    ctes,
    before: sql`(select count(*) from u) >= 0 and (select cardinality(ids) from g) = 0`,
    gone: sql`(select ids from g)`,
    changed: sql`(select coalesce(jsonb_agg(to_jsonb(u)), '[]'::jsonb) from u)`,
    ...noticesWith(room, noticed),
  };
}

interface Delta {
  eventId: string;
  type: string;
  delta: number;
}

/**
 * Inserts the set reactions (in order, so the latest come last) and deletes the taken-back ones; the
 * net change per reaction that moved. Only for targets the caller holds locked (chat_reactions has
 * no foreign key to check them).
 */
async function changeRows(tx: Queryable, changes: ReactionChange[]): Promise<Delta[]> {
  if (changes.length === 0) return [];
  const set = changes.filter((c) => c.reacted);
  const gone = changes.filter((c) => !c.reacted);
  const found = await rows<{ event_id: string; type: string; delta: number }>(
    tx,
    sql`with d as (
      delete from chat_reactions r
      using unnest(${textArray(gone.map((c) => c.eventId))}::text[], ${textArray(gone.map((c) => c.type))}::text[], ${textArray(gone.map((c) => c.userId))}::text[]) as g(event_id, type, user_id)
      where r.event_id = g.event_id and r.type = g.type and r.user_id = g.user_id
      returning r.event_id, r.type, -1 as delta
    ), i as (
      insert into chat_reactions (event_id, type, user_id)
      select a.event_id, a.type, a.user_id
      from unnest(${textArray(set.map((c) => c.eventId))}::text[], ${textArray(set.map((c) => c.type))}::text[], ${textArray(set.map((c) => c.userId))}::text[]) with ordinality as a(event_id, type, user_id, k)
      order by a.k
      on conflict do nothing
      returning event_id, type, 1 as delta
    )
    select event_id, type, sum(delta)::int as delta from (select * from d union all select * from i) c group by event_id, type`,
  );
  return found.filter((f) => Number(f.delta) !== 0).map((f) => ({ eventId: f.event_id, type: f.type, delta: Number(f.delta) }));
}

/** The latest `shown` users of each reaction, oldest first, one index range each. */
async function latestUsers(tx: Queryable, pairs: { eventId: string; type: string }[], shown: number): Promise<Map<string, string[]>> {
  const found = await rows<{ event_id: string; type: string; user_id: string }>(
    tx,
    sql`select p.event_id, p.type, l.user_id
      from unnest(${textArray(pairs.map((p) => p.eventId))}::text[], ${textArray(pairs.map((p) => p.type))}::text[]) as p(event_id, type)
      cross join lateral (
        select r.user_id, r.n from chat_reactions r where r.event_id = p.event_id and r.type = p.type order by r.n desc limit ${shown}
      ) l
      order by p.event_id, p.type, l.n`,
  );
  const out = new Map<string, string[]>();
  for (const f of found) {
    const key = pairKey(f.event_id, f.type);
    const list = out.get(key);
    if (list === undefined) out.set(key, [f.user_id]);
    else list.push(f.user_id);
  }
  return out;
}

export interface Reactor {
  userId: string;
  n: number;
  added: Date;
}

/** Who reacted with `type`, newest first, before position `beforeN` (0: from the newest). */
export async function listReactors(q: Queryable, eventId: string, type: string, beforeN: number, limit: number): Promise<Reactor[]> {
  const found = await rows<{ user_id: string; n: string | number; added: string | Date }>(
    q,
    sql`select user_id, n, added from chat_reactions
      where event_id = ${eventId} and type = ${type} ${beforeN > 0 ? sql`and n < ${beforeN}` : sql``}
      order by n desc limit ${limit}`,
  );
  return found.map((f) => ({ userId: f.user_id, n: Number(f.n), added: new Date(f.added) }));
}

/** Of `eventIds`, those `userId` reacted to, with the types: for showing a viewer their own reactions. */
export async function reactionsBy(q: Queryable, userId: string, eventIds: string[]): Promise<{ eventId: string; type: string }[]> {
  if (eventIds.length === 0) return [];
  const found = await rows<{ event_id: string; type: string }>(q, sql`select event_id, type from chat_reactions where user_id = ${userId} and event_id = any(${textArray(eventIds)}::text[])`);
  return found.map((f) => ({ eventId: f.event_id, type: f.type }));
}
