import { sql } from 'drizzle-orm';
import type { AnyPgColumn, PgTable } from 'drizzle-orm/pg-core';
import { boolArray, textArray } from '../../db/arrays.js';
import { rows, type Queryable } from '../../db/client.js';
import { commentConversationReactions, commentReactions, commentVotes } from '../../db/schema/comments.js';
import type { Transition } from '../services/tally-change.js';

/** A table of one row per user and type on a target (a comment's reactions or votes, a conversation's reactions). */
export interface TallyRows {
  table: PgTable;
  target: AnyPgColumn;
  type: AnyPgColumn;
  user: AnyPgColumn;
  added: AnyPgColumn;
}

export const COMMENT_REACTIONS: TallyRows = { table: commentReactions, target: commentReactions.commentId, type: commentReactions.type, user: commentReactions.userId, added: commentReactions.added };
export const CONVERSATION_REACTIONS: TallyRows = {
  table: commentConversationReactions,
  target: commentConversationReactions.conversationKey,
  type: commentConversationReactions.type,
  user: commentConversationReactions.userId,
  added: commentConversationReactions.added,
};
export const COMMENT_VOTES: TallyRows = { table: commentVotes, target: commentVotes.commentId, type: commentVotes.vote, user: commentVotes.userId, added: commentVotes.added };

const name = (column: AnyPgColumn) => sql.identifier(column.name);

/** What a batch changed: each user's types before it, and the transitions it made. */
export interface Applied {
  before: Map<string, Set<string>>;
  transitions: Transition[];
}

/** One user's wanted state of one type: taken (on) or not. */
export interface Wanted {
  userId: string;
  type: string;
  on: boolean;
}

interface Row {
  k: 'm' | 'i' | 'd' | 'u';
  user_id: string;
  type: string;
  added: Date | string | null;
}

const asDate = (v: Date | string | null) => (v === null ? null : v instanceof Date ? v : new Date(v));

function beforeOf(found: Row[]): Map<string, Set<string>> {
  const before = new Map<string, Set<string>>();
  for (const r of found) {
    if (r.k !== 'm') continue;
    const types = before.get(r.user_id);
    if (types === undefined) before.set(r.user_id, new Set([r.type]));
    else types.add(r.type);
  }
  return before;
}

/**
 * Reactions (at most one wanted state per user and type) in one statement: their rows inserted or
 * deleted, returning the batch users' types before, and exactly what changed. Must run under the
 * target's row lock, so the types read before are those the changes apply to.
 */
export async function applyReactions(q: Queryable, t: TallyRows, target: string, wanted: Wanted[]): Promise<Applied> {
  const users = [...new Set(wanted.map((w) => w.userId))];
  const found = await rows<Row>(
    q,
    sql`with d(user_id, type, on_) as (
      select * from unnest(${textArray(wanted.map((w) => w.userId))}::text[], ${textArray(wanted.map((w) => w.type))}::text[], ${boolArray(wanted.map((w) => w.on))}::boolean[])
    ), mine as (
      select r.${name(t.user)} as user_id, r.${name(t.type)} as type from ${t.table} r where r.${name(t.target)} = ${target} and r.${name(t.user)} = any(${textArray(users)}::text[])
    ), ins as (
      insert into ${t.table} (${name(t.target)}, ${name(t.user)}, ${name(t.type)}, ${name(t.added)})
      select ${target}, d.user_id, d.type, clock_timestamp() from d where d.on_
      on conflict do nothing
      returning ${name(t.user)} as user_id, ${name(t.type)} as type, ${name(t.added)} as added
    ), del as (
      delete from ${t.table} r using d where r.${name(t.target)} = ${target} and r.${name(t.user)} = d.user_id and r.${name(t.type)} = d.type and not d.on_
      returning r.${name(t.user)} as user_id, r.${name(t.type)} as type
    )
    select 'm' as k, user_id, type, null::timestamptz as added from mine
    union all select 'i', user_id, type, added from ins
    union all select 'd', user_id, type, null from del`,
  );
  const transitions: Transition[] = [];
  for (const r of found) {
    if (r.k === 'i') transitions.push({ userId: r.user_id, from: null, to: r.type, at: asDate(r.added) });
    else if (r.k === 'd') transitions.push({ userId: r.user_id, from: r.type, to: null, at: null });
  }
  return { before: beforeOf(found), transitions };
}

/**
 * Votes (one wanted vote per user, '' for none) in one statement: set, changed or removed,
 * returning each batch user's vote before and exactly what changed. A changed vote keeps its
 * row's time, as it always did. Must run under the comment's row lock.
 */
export async function applyVotes(q: Queryable, target: string, wanted: { userId: string; vote: string }[]): Promise<Applied> {
  const t = COMMENT_VOTES;
  const found = await rows<Row>(
    q,
    sql`with d(user_id, vote) as (
      select * from unnest(${textArray(wanted.map((w) => w.userId))}::text[], ${textArray(wanted.map((w) => w.vote))}::text[])
    ), mine as (
      select v.user_id, v.vote from ${t.table} v join d on d.user_id = v.user_id where v.comment_id = ${target}
    ), del as (
      delete from ${t.table} v using d where v.comment_id = ${target} and v.user_id = d.user_id and d.vote = ''
    ), ups as (
      insert into ${t.table} (comment_id, user_id, vote, added)
      select ${target}, d.user_id, d.vote, clock_timestamp() from d where d.vote <> ''
      on conflict (comment_id, user_id) do update set vote = excluded.vote where ${t.table}.vote <> excluded.vote
      returning user_id, vote, added
    )
    select 'm' as k, user_id, vote as type, null::timestamptz as added from mine
    union all select 'u', user_id, vote, added from ups`,
  );
  const before = beforeOf(found);
  const set = new Map(found.filter((r) => r.k === 'u').map((r) => [r.user_id, r]));
  const transitions: Transition[] = [];
  for (const w of wanted) {
    const was = [...(before.get(w.userId) ?? [])][0] ?? null;
    const now = set.get(w.userId);
    if (w.vote === '' && was !== null) transitions.push({ userId: w.userId, from: was, to: null, at: null });
    else if (now !== undefined) transitions.push({ userId: w.userId, from: was, to: now.type, at: was === null ? asDate(now.added) : null });
  }
  return { before, transitions };
}

/** The latest `shown` users of each type (latest first), read from the rows. */
export async function latestUsers(q: Queryable, t: TallyRows, target: string, types: string[], shown: number): Promise<Map<string, string[]>> {
  const latest = new Map<string, string[]>(types.map((type) => [type, []]));
  if (types.length === 0) return latest;
  const found = await rows<{ type: string; user_id: string }>(
    q,
    sql`select x.type, x.user_id from unnest(${textArray(types)}::text[]) as w(type) cross join lateral (
      select r.${name(t.type)} as type, r.${name(t.user)} as user_id from ${t.table} r
      where r.${name(t.target)} = ${target} and r.${name(t.type)} = w.type order by r.${name(t.added)} desc, r.${name(t.user)} desc limit ${shown}
    ) x`,
  );
  for (const r of found) latest.get(r.type)?.push(r.user_id);
  return latest;
}

/** A page of the users who took one type, newest first, after (added, user) of the last page's last row. */
export async function pageUsers(q: Queryable, t: TallyRows, target: string, type: string, after: { a: string; i: string } | undefined, limit: number): Promise<{ userId: string; added: Date }[]> {
  const found = await rows<{ user_id: string; added: Date | string }>(
    q,
    sql`select r.${name(t.user)} as user_id, r.${name(t.added)} as added from ${t.table} r
      where r.${name(t.target)} = ${target} and r.${name(t.type)} = ${type}
      ${after === undefined ? sql`` : sql`and (r.${name(t.added)}, r.${name(t.user)}) < (${after.a}::timestamptz, ${after.i})`}
      order by r.${name(t.added)} desc, r.${name(t.user)} desc limit ${limit}`,
  );
  return found.map((r) => ({ userId: r.user_id, added: asDate(r.added) as Date }));
}
