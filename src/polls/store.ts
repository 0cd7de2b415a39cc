import { and, asc, desc, eq, getTableColumns, gt, inArray, lt, ne, sql } from 'drizzle-orm';
import { intArray, textArray } from '../db/arrays.js';
import { deletedCount, rows, type Queryable } from '../db/client.js';
import { pollChoices, pollLeads, pollResponses, polls } from '../db/schema/index.js';
import { groupBy } from '../group-by.js';
import type { Choice, Lead, NewChoice, NewLead, NewPoll, Poll, PollResponse, VotingState } from './types.js';

export async function insertPoll(q: Queryable, row: NewPoll): Promise<Poll> {
  const [poll] = await q.insert(polls).values(row).returning();
  return poll as Poll;
}

export async function updatePoll(q: Queryable, appId: string, id: string, patch: Partial<NewPoll>): Promise<Poll | undefined> {
  const [poll] = await q
    .update(polls)
    .set({ ...patch, whenModified: new Date() })
    .where(and(eq(polls.appId, appId), eq(polls.id, id)))
    .returning();
  return poll;
}

export async function findPoll(q: Queryable, appId: string, id: string): Promise<Poll | undefined> {
  const [poll] = await q
    .select()
    .from(polls)
    .where(and(eq(polls.appId, appId), eq(polls.id, id)));
  return poll;
}

export async function findPollByCustomId(q: Queryable, appId: string, customId: string): Promise<Poll | undefined> {
  const [poll] = await q
    .select()
    .from(polls)
    .where(and(eq(polls.appId, appId), eq(polls.customId, customId)));
  return poll;
}

/** Newest first; `before` is the id the previous page ended on. */
export async function listPolls(q: Queryable, appId: string, includeUnpublished: boolean, before: string | undefined, limit: number): Promise<Poll[]> {
  return q
    .select()
    .from(polls)
    .where(and(eq(polls.appId, appId), includeUnpublished ? undefined : ne(polls.status, 'unpublished'), before === undefined ? undefined : lt(polls.id, before)))
    .orderBy(desc(polls.id))
    .limit(limit);
}

export async function deletePoll(q: Queryable, appId: string, id: string): Promise<Poll | undefined> {
  const [poll] = await q
    .delete(polls)
    .where(and(eq(polls.appId, appId), eq(polls.id, id)))
    .returning();
  return poll;
}

/** The polls' rows locked until the transaction ends, in id order so concurrent batches cannot deadlock. */
export async function lockPolls(q: Queryable, ids: string[]): Promise<Poll[]> {
  return q.select().from(polls).where(inArray(polls.id, ids)).orderBy(asc(polls.id)).for('update');
}

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

/** Choices of several polls in one query, each poll's in position order. */
export async function choicesOf(q: Queryable, pollIds: string[], limit?: number): Promise<Choice[]> {
  if (pollIds.length === 0) return [];
  const query = q.select().from(pollChoices).where(inArray(pollChoices.pollId, pollIds)).orderBy(asc(pollChoices.pollId), asc(pollChoices.position), asc(pollChoices.id));
  return limit === undefined ? query : query.limit(limit);
}

/** choicesOf, grouped by poll (a poll without choices has no entry). */
export async function choicesByPoll(q: Queryable, pollIds: string[]): Promise<Map<string, Choice[]>> {
  return groupBy(await choicesOf(q, pollIds), (c) => c.pollId);
}

export async function nextPosition(q: Queryable, pollId: string): Promise<number> {
  const [row] = await q
    .select({ next: sql<number>`coalesce(max(${pollChoices.position}) + 1, 0)::int` })
    .from(pollChoices)
    .where(eq(pollChoices.pollId, pollId));
  return row?.next ?? 0;
}

export async function insertChoices(q: Queryable, choices: NewChoice[]): Promise<void> {
  await q.insert(pollChoices).values(choices);
}

export async function deleteChoice(q: Queryable, pollId: string, choiceId: string): Promise<Choice | undefined> {
  const [choice] = await q
    .delete(pollChoices)
    .where(and(eq(pollChoices.pollId, pollId), eq(pollChoices.id, choiceId)))
    .returning();
  return choice;
}

/** Removes every response and zeroes the counters; the caller holds the poll's lock. Returns the poll as updated. */
export async function clearResponses(q: Queryable, pollId: string): Promise<{ poll: Poll; removed: number }> {
  const removed = await deleteResponses(q, pollId);
  await q.update(pollChoices).set({ responseCount: 0 }).where(eq(pollChoices.pollId, pollId));
  const [poll] = await q.update(polls).set({ totalResponses: 0, whenModified: new Date() }).where(eq(polls.id, pollId)).returning();
  return { poll: poll as Poll, removed };
}

export async function addToTotal(q: Queryable, pollId: string, delta: number): Promise<void> {
  await q
    .update(polls)
    .set({ totalResponses: sql`${polls.totalResponses} + ${delta}` })
    .where(eq(polls.id, pollId));
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

export function deleteResponses(q: Queryable, pollId: string, choiceId?: string): Promise<number> {
  return deletedCount(q, sql`delete from ${pollResponses} where poll_id = ${pollId} ${choiceId === undefined ? sql`` : sql`and choice_id = ${choiceId}`} returning 1`);
}

/** Oldest first, after the id the previous page ended on. */
export async function listResponses(q: Queryable, pollId: string, after: string, limit: number): Promise<PollResponse[]> {
  return q
    .select()
    .from(pollResponses)
    .where(and(eq(pollResponses.pollId, pollId), gt(pollResponses.id, after)))
    .orderBy(asc(pollResponses.id))
    .limit(limit);
}

export async function userResponses(q: Queryable, pollId: string, userId: string): Promise<PollResponse[]> {
  return q
    .select()
    .from(pollResponses)
    .where(and(eq(pollResponses.pollId, pollId), eq(pollResponses.userId, userId)))
    .orderBy(asc(pollResponses.id));
}

export async function insertLead(q: Queryable, row: NewLead): Promise<Lead> {
  const [lead] = await q.insert(pollLeads).values(row).returning();
  return lead as Lead;
}

export async function listLeads(q: Queryable, pollId: string, after: string, limit: number): Promise<Lead[]> {
  return q
    .select()
    .from(pollLeads)
    .where(and(eq(pollLeads.pollId, pollId), gt(pollLeads.id, after)))
    .orderBy(asc(pollLeads.id))
    .limit(limit);
}

export async function pollsByIds(q: Queryable, ids: string[]): Promise<Poll[]> {
  if (ids.length === 0) return [];
  return q.select().from(polls).where(inArray(polls.id, ids));
}
