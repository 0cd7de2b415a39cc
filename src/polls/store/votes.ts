import { eq, getTableColumns, sql } from 'drizzle-orm';
import { intArray, textArray } from '../../db/arrays.js';
import { rows, type Queryable } from '../../db/client.js';
import { pollChoices, pollResponses, polls } from '../../db/schema/index.js';
import type { Poll, PollResponse, VotingState } from '../types.js';

/** A poll without a lock, with its row version (xmin). */
export async function pollWithVersion(q: Queryable, id: string): Promise<{ poll: Poll; version: string } | undefined> {
  const [found] = await q
    .select({ ...getTableColumns(polls), version: sql<string>`${polls}.xmin::text` })
    .from(polls)
    .where(eq(polls.id, id));
  if (found === undefined) return undefined;
  const { version, ...poll } = found;
  return { poll, version };
}

/**
 * In one statement: the polls' choices, and how many responses each voter already gave to each
 * choice. The lateral probe per (poll, voter) keeps this an index lookup per voter: with the
 * arrays in one condition the planner may instead read all of a growing poll's responses.
 */
export async function votingState(q: Queryable, pollIds: string[], userIds: string[]): Promise<VotingState> {
  const found = await rows<{ k: string; poll_id: string; choice_id: string; user_id: string; n: number }>(
    q,
    sql`select 'c' as k, poll_id, id as choice_id, '' as user_id, 0 as n from ${pollChoices} where poll_id = any(${textArray(pollIds)}::text[])
        union all
        select 'v', id, xmin::text, '', 0 from ${polls} where id = any(${textArray(pollIds)}::text[])
        union all
        select 't', p.id, x.choice_id, u.id, x.n
        from unnest(${textArray(pollIds)}::text[]) as p(id) cross join unnest(${textArray(userIds)}::text[]) as u(id)
        cross join lateral (select choice_id, count(*)::int as n from ${pollResponses} r where r.poll_id = p.id and r.user_id = u.id group by choice_id) as x`,
  );
  const state: VotingState = { choices: new Map(), versions: new Map(), tallies: [] };
  for (const r of found) {
    if (r.k === 'c') state.choices.set(r.choice_id, r.poll_id);
    else if (r.k === 'v') state.versions.set(r.poll_id, r.choice_id);
    else state.tallies.push({ pollId: r.poll_id, userId: r.user_id, choiceId: r.choice_id, n: r.n });
  }
  return state;
}

const responseArrays = (responses: PollResponse[]) =>
  sql`${textArray(responses.map((r) => r.id))}::text[], ${textArray(responses.map((r) => r.pollId))}::text[],
    ${textArray(responses.map((r) => r.choiceId))}::text[], ${textArray(responses.map((r) => r.userId))}::text[],
    ${textArray(responses.map((r) => r.added.toISOString()))}::timestamptz[]`;
const choiceCounts = (byChoice: Map<string, number>) => sql`${textArray([...byChoice.keys()])}::text[], ${intArray([...byChoice.values()])}::int[]`;

/**
 * Inserts the accepted responses and adds them to the per-choice and per-poll counters, in one
 * statement: arrays keep the parameter count fixed whatever the batch size.
 */
export async function recordVotes(q: Queryable, responses: PollResponse[], byChoice: Map<string, number>, byPoll: Map<string, number>): Promise<void> {
  if (responses.length === 0) return;
  await q.execute(sql`with inserted as (
      insert into ${pollResponses} (id, poll_id, choice_id, user_id, added) select * from unnest(${responseArrays(responses)})
      returning 1
    ), choices as (
      update ${pollChoices} c set response_count = c.response_count + d.n from unnest(${choiceCounts(byChoice)}) as d(id, n) where c.id = d.id
      returning 1
    )
    update ${polls} p set total_responses = p.total_responses + d.n
    from unnest(${textArray([...byPoll.keys()])}::text[], ${intArray([...byPoll.values()])}::int[]) as d(id, n) where p.id = d.id`);
}

/**
 * recordVotes for one poll, only if the poll row is still at `version` (nothing changed it, no
 * vote committed, since it was read): one statement, so one round trip and an implicit commit.
 * Returns the poll's new version, or undefined, with nothing written, when it had changed.
 */
export async function recordVotesIfUnchanged(q: Queryable, pollId: string, version: string, responses: PollResponse[], byChoice: Map<string, number>): Promise<string | undefined> {
  const [row] = await rows<{ version: string }>(
    q,
    sql`with bumped as (
      update ${polls} set total_responses = total_responses + ${responses.length} where id = ${pollId} and xmin::text = ${version} returning xmin::text as version
    ), inserted as (
      insert into ${pollResponses} (id, poll_id, choice_id, user_id, added) select * from unnest(${responseArrays(responses)}) where exists (select 1 from bumped)
      returning 1
    ), choices as (
      update ${pollChoices} c set response_count = c.response_count + d.n from unnest(${choiceCounts(byChoice)}) as d(id, n)
      where c.id = d.id and exists (select 1 from bumped)
      returning 1
    )
    select version from bumped`,
  );
  return row?.version;
}
