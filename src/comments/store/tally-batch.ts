import { getTableColumns, sql, type SQL } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import { boolArray, textArray } from '../../db/arrays.js';
import { preparedRows, type Queryable } from '../../db/client.js';
import { commentConversations, comments } from '../../db/schema/comments.js';
import { addedAt, insertNotificationRows } from '../../notifications/insert.js';
import type { Comment, CommentIn, Conversation } from '../types.js';
import { COMMENT_REACTIONS, COMMENT_VOTES, CONVERSATION_REACTIONS, name, type TallyRows } from './tally-rows.js';

/** One user's committed change on one target: `from` type left, `to` type taken (null: none). */
export interface Change {
  userId: string;
  from: string | null;
  to: string | null;
}

/** What one batch statement did: the target after it (undefined: no such target), the batch users' types as the statement found them, exactly what changed, and the notifications it wrote. */
export interface BatchOutcome<Row> {
  target: Row | undefined;
  before: Map<string, Set<string>>;
  changes: Change[];
  /** The ids of the notifications it wrote. */
  notified: string[];
}

/** One user's wanted state of one reaction type: taken (on) or not. */
export interface WantedReaction {
  userId: string;
  type: string;
  on: boolean;
}

/** A batch's wanted reactions on a comment, each taken one with the id its author's notification gets if it is added ('' for one taken back). */
export interface NoticedReactions {
  wanted: WantedReaction[];
  noticeIds: string[];
  added: Date;
}

/** One user's wanted vote: up, down, or '' for none. */
export interface WantedVote {
  userId: string;
  vote: string;
}

interface Found {
  k: 'm' | 'x' | 'c' | 'n';
  user_id: string | null;
  from_: string | null;
  to_: string | null;
  target: Record<string, unknown> | string | null;
  conv: Record<string, unknown> | string | null;
}

/** The target row, locked (so the batches of every node on it go one after another), as `key`, its `tallies`, the whole row and its conversation. */
const lockComment = (column: 'votes' | 'reactions', appId: string, conversationId: string, commentId: string) =>
  sql`select cm.id as key, cm.${sql.identifier(column)} as tallies, cm as target, cv as conv
    from comments cm join comment_conversations cv on cv.key = cm.conversation_key
    where cv.app_id = ${appId} and cv.conversation_id = ${conversationId} and cm.id = ${commentId}
    for update of cm`;

const lockConversation = (appId: string, conversationId: string) =>
  sql`select cv.key, cv.reactions as tallies, cv as target, cv as conv
    from comment_conversations cv where cv.app_id = ${appId} and cv.conversation_id = ${conversationId}
    for update`;

/**
 * The tallies after the changes `x` (user_id, from_, to_, added), from the locked row's `c.tallies`:
 * counts moved by exactly what changed; each touched type's latest `shown` users (oldest first)
 * read from its rows beside this statement's own changes (which its reads do not see); untouched
 * types as they were. Emptied types stay (count 0, no users) when `keepEmptied`, else go.
 */
function talliesAfter(t: TallyRows, shown: number, keepEmptied: boolean): SQL {
  return sql`d as (
      select type, sum(delta)::int as delta, min(first) as first from (
        select to_ as type, 1 as delta, added as first from x where to_ is not null
        union all select from_, -1, added from x where from_ is not null
      ) y group by type
    ), o as (
      select e->>'type' as type, ord, (e->>'count')::int as count, e->'users' as users from c, jsonb_array_elements(c.tallies) with ordinality as z(e, ord)
    ), ty as (
      select coalesce(o.type, d.type) as type, o.ord, d.first, coalesce(o.count, 0) + coalesce(d.delta, 0) as count, o.users, d.type is not null as touched
      from o full join d on d.type = o.type
    ), tl as (
      select ty.type, ty.ord, ty.first, greatest(ty.count, 0) as count,
        case when ty.count <= 0 then '[]'::jsonb when not ty.touched then ty.users else (
          select coalesce(jsonb_agg(q.user_id order by q.added, q.user_id), '[]'::jsonb) from (
            select l.user_id, l.added from (
              select r.user_id, r.added from (
                select r.${name(t.user)} as user_id, r.${name(t.added)} as added from ${t.table} r
                where r.${name(t.target)} = (select key from c) and r.${name(t.type)} = ty.type
                order by r.${name(t.added)} desc, r.${name(t.user)} desc limit ${shown} + (select count(*) from x)
              ) r where not exists (select 1 from x where x.user_id = r.user_id and (x.from_ = ty.type or x.to_ = ty.type))
              union all select x.user_id, x.added from x where x.to_ = ty.type
            ) l order by l.added desc, l.user_id desc limit ${shown}
          ) q) end as users
      from ty where ty.count > 0 or ${sql.raw(String(keepEmptied))}
    ), t as (
      select coalesce(jsonb_agg(jsonb_build_object('type', tl.type, 'count', tl.count, 'users', tl.users) order by tl.ord nulls last, tl.first, tl.type), '[]'::jsonb) as tallies from tl
    )`;
}

const countOf = (type: string) => sql`coalesce((select sum((e->>'count')::int) from jsonb_array_elements(t.tallies) e where e->>'type' = ${type}), 0)`;

/** Rows of the statement's answer: the batch users' types before ('m'), the changes ('x'), the target after and its conversation ('c'). */
const ANSWER = sql`select 'm' as k, m.user_id, m.type as from_, null::text as to_, null::jsonb as target, null::jsonb as conv from m
    union all select 'x', x.user_id, x.from_, x.to_, null, null from x
    union all select 'c', null, null, null, to_jsonb(coalesce((select u.r from u), c.target)), to_jsonb(c.conv) from c`;

/** Statements a reaction batch adds after its rows are written (`ins`), and the rows they add to its answer. */
interface AfterReactions {
  ctes: SQL;
  answer: SQL;
}

/**
 * The notifications of a batch of reactions on a comment, written in the reactions' statement
 * so each commits with its reaction: one to the comment's author for each reaction added (a
 * repeat adds none), never to the one who reacted. Answer rows 'n': the notification's id (from_).
 */
const commentReactionNotices = (added: Date): AfterReactions => ({
  ctes: sql`, notice as (${insertNotificationRows(sql`
      select w.notice_id, (c.conv).app_id, (c.target).user_id, 'reaction', 'commentreaction', 'comment', (c.conv).conversation_id, (c.conv).custom_id, (c.target).id, ins.user_id, ${addedAt(added)}
      from ins join w on w.user_id = ins.user_id and w.type = ins.to_, c
      where (c.target).user_id <> ins.user_id`)}
    )`,
  answer: sql` union all select 'n', null, n.id, null, null, null from notice n`,
});

/**
 * Reactions (at most one wanted state per user and type) on one target, in one statement: the
 * target row locked, the rows inserted or deleted, the tallies written once from exactly what
 * changed. A type the target does not list yet is taken only while it lists fewer than
 * `maxTypes` (within a batch, in the order they came); the others change nothing.
 */
function reactionStatement(t: TallyRows, lock: SQL, update: SQL, wanted: WantedReaction[], shown: number, maxTypes: number, after?: AfterReactions & { noticeIds: string[] }): SQL {
  const users = textArray(wanted.map((w) => w.userId));
  const noticeIds = textArray(after?.noticeIds ?? wanted.map(() => ''));
  return sql`with c as (${lock}), w as (
      select * from unnest(${users}::text[], ${textArray(wanted.map((w) => w.type))}::text[], ${boolArray(wanted.map((w) => w.on))}::boolean[], ${noticeIds}::text[]) with ordinality as w(user_id, type, on_, notice_id, k)
    ), listed as (
      select e->>'type' as type from c, jsonb_array_elements(c.tallies) e
    ), m as (
      select r.user_id, r.type from listed, unnest(${users}::text[]) as p(user_id), lateral (
        select r.${name(t.user)} as user_id, r.${name(t.type)} as type from ${t.table} r
        where r.${name(t.target)} = (select key from c) and r.${name(t.type)} = listed.type and r.${name(t.user)} = p.user_id limit 1
      ) r
    ), fresh as (
      select w.type from w where w.on_ and w.type not in (select type from listed) group by w.type
      order by min(w.k) limit greatest(${maxTypes} - (select count(*) from listed), 0)
    ), ins as (
      insert into ${t.table} (${name(t.target)}, ${name(t.user)}, ${name(t.type)}, ${name(t.added)})
      select c.key, w.user_id, w.type, clock_timestamp() from w, c
      where w.on_ and (w.type in (select type from listed) or w.type in (select type from fresh))
        and not exists (select 1 from m where m.user_id = w.user_id and m.type = w.type)
      order by w.k
      on conflict do nothing
      returning ${name(t.user)} as user_id, null::text as from_, ${name(t.type)} as to_, ${name(t.added)} as added
    ), del as (
      delete from ${t.table} r using w where r.${name(t.target)} = (select key from c) and r.${name(t.user)} = w.user_id and r.${name(t.type)} = w.type and not w.on_
      returning r.${name(t.user)} as user_id, r.${name(t.type)} as from_, null::text as to_, r.${name(t.added)} as added
    ), x as (
      select * from ins union all select * from del
    ), ${talliesAfter(t, shown, true)}, u as (${update})${after?.ctes ?? sql``}
    ${ANSWER}${after?.answer ?? sql``}`;
}

/**
 * Votes (one wanted vote per user) on one comment, in one statement, as reactionStatement. Each
 * change applies only to the vote this statement found (compare and set): a vote another node
 * changed since this statement's snapshot was taken, while it waited for the comment's lock, is
 * left alone (no row of `x` for that user), and the caller sends it again.
 */
function voteStatement(appId: string, conversationId: string, commentId: string, wanted: WantedVote[], shown: number): SQL {
  const users = textArray(wanted.map((w) => w.userId));
  return sql`with c as (${lockComment('votes', appId, conversationId, commentId)}), w as (
      select * from unnest(${users}::text[], ${textArray(wanted.map((w) => w.vote))}::text[]) with ordinality as w(user_id, vote, k)
    ), m as (
      select v.user_id, v.type from unnest(${users}::text[]) as p(user_id), lateral (
        select v.user_id, v.vote as type from comment_votes v where v.comment_id = (select key from c) and v.user_id = p.user_id limit 1
      ) v
    ), ins as (
      insert into comment_votes (comment_id, user_id, vote, added)
      select c.key, w.user_id, w.vote, clock_timestamp() from w, c where w.vote <> '' and not exists (select 1 from m where m.user_id = w.user_id) order by w.k
      on conflict do nothing
      returning user_id, null::text as from_, vote as to_, added
    ), chg as (
      update comment_votes v set vote = w.vote from w, m
      where m.user_id = w.user_id and v.comment_id = (select key from c) and v.user_id = w.user_id and w.vote <> '' and w.vote <> m.type and v.vote = m.type
      returning v.user_id, m.type as from_, v.vote as to_, v.added
    ), del as (
      delete from comment_votes v using w, m
      where m.user_id = w.user_id and v.comment_id = (select key from c) and v.user_id = w.user_id and w.vote = '' and v.vote = m.type
      returning v.user_id, m.type as from_, null::text as to_, v.added
    ), x as (
      select * from ins union all select * from chg union all select * from del
    ), ${talliesAfter(COMMENT_VOTES, shown, false)}, u as (
      update comments cm set votes = t.tallies, vote_count = ${countOf('up')} + ${countOf('down')}, vote_score = ${countOf('up')} - ${countOf('down')}
      from t where cm.id = (select key from c) and exists (select 1 from x)
      returning cm as r
    )
    ${ANSWER}`;
}

const likesOf = sql`like_count = ${countOf('like')}`;

/** A row of `table` from its JSON (to_jsonb: column names, timestamps as text), as drizzle would read it. */
function rowFromJson<T extends PgTable>(table: T, json: Record<string, unknown> | string | null): T['$inferSelect'] {
  const raw = (typeof json === 'string' ? JSON.parse(json) : json) as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [key, column] of Object.entries(getTableColumns(table))) {
    const value = raw[column.name];
    out[key] = value === null || value === undefined ? null : column.mapFromDriverValue(value);
  }
  return out as T['$inferSelect'];
}

async function run<Row>(q: Queryable, statementName: string, statement: SQL, targetOf: (found: Found) => Row): Promise<BatchOutcome<Row>> {
  const found = await preparedRows<Found>(q, statementName, statement);
  const before = new Map<string, Set<string>>();
  const changes: Change[] = [];
  const notified: string[] = [];
  let target: Row | undefined;
  for (const f of found) {
    if (f.k === 'c') target = targetOf(f);
    else if (f.k === 'x') changes.push({ userId: f.user_id as string, from: f.from_, to: f.to_ });
    else if (f.k === 'n') notified.push(f.from_ as string);
    else {
      const types = before.get(f.user_id as string);
      if (types === undefined) before.set(f.user_id as string, new Set([f.from_ as string]));
      else types.add(f.from_ as string);
    }
  }
  return { target, before, changes, notified };
}

const commentIn = (f: Found): CommentIn => ({ comment: rowFromJson(comments, f.target) as Comment, conversation: rowFromJson(commentConversations, f.conv) as Conversation });

/** A batch of votes on one comment (found through its conversation's id), in one statement. */
export function writeVotes(q: Queryable, appId: string, conversationId: string, commentId: string, wanted: WantedVote[], shown: number): Promise<BatchOutcome<CommentIn>> {
  return run(q, 'comment_votes_batch', voteStatement(appId, conversationId, commentId, wanted, shown), commentIn);
}

/** A batch of reactions on one comment (found through its conversation's id), and their notifications, in one statement. */
export function writeCommentReactions(
  q: Queryable,
  appId: string,
  conversationId: string,
  commentId: string,
  { wanted, noticeIds, added }: NoticedReactions,
  shown: number,
  maxTypes: number,
): Promise<BatchOutcome<CommentIn>> {
  const update = sql`update comments cm set reactions = t.tallies, ${likesOf} from t where cm.id = (select key from c) and exists (select 1 from x) returning cm as r`;
  const lock = lockComment('reactions', appId, conversationId, commentId);
  return run(q, 'comment_reactions_batch', reactionStatement(COMMENT_REACTIONS, lock, update, wanted, shown, maxTypes, { ...commentReactionNotices(added), noticeIds }), commentIn);
}

/** A batch of reactions on one conversation, in one statement. */
export function writeConversationReactions(q: Queryable, appId: string, conversationId: string, wanted: WantedReaction[], shown: number, maxTypes: number): Promise<BatchOutcome<Conversation>> {
  const update = sql`update comment_conversations cv set reactions = t.tallies, ${likesOf} from t where cv.key = (select key from c) and exists (select 1 from x) returning cv as r`;
  return run(
    q,
    'conversation_reactions_batch',
    reactionStatement(CONVERSATION_REACTIONS, lockConversation(appId, conversationId), update, wanted, shown, maxTypes),
    (f) => rowFromJson(commentConversations, f.target) as Conversation,
  );
}
