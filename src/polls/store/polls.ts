import { and, asc, desc, eq, inArray, lt, ne, sql } from 'drizzle-orm';
import { textArrayLiteral } from '../../db/arrays.js';
import { statementOnce, type Queryable } from '../../db/client.js';
import { pollChoices, polls } from '../../db/schema/index.js';
import { tableRows } from '../../db/table-rows.js';
import { groupBy } from '../../group-by.js';
import type { Choice, NewChoice, NewPoll, Poll, PollWithChoices } from '../types.js';

const POLL_ROWS = tableRows(polls);
const CHOICE_ROWS = tableRows(pollChoices);
const c = pollChoices;
/** A poll by id, alone or with its choices (its standings, its details): named statements, as a poll nobody read recently is read by one. */
const POLL_BY_ID = statementOnce<Record<string, unknown>>(
  'poll_by_id',
  sql`select ${POLL_ROWS.list} from ${polls} where ${polls.appId} = ${sql.placeholder('appId')} and ${polls.id} = ${sql.placeholder('pollId')}`,
);
const POLLS_WITH_CHOICES = statementOnce<Record<string, unknown> & { choices: Record<string, unknown>[] }>(
  'polls_with_choices',
  sql`select ${POLL_ROWS.list},
      (select coalesce(json_agg(to_jsonb(c) order by c.${sql.identifier(c.position.name)}, c.${sql.identifier(c.id.name)}), '[]') from ${c} c
        where c.${sql.identifier(c.pollId.name)} = ${polls.id}) as "choices"
    from ${polls} where ${polls.id} = any(${sql.placeholder('pollIds')}::text[])`,
);

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
  const [row] = await POLL_BY_ID(q, { appId, pollId: id });
  return row === undefined ? undefined : POLL_ROWS.of(row);
}

/** These polls (whatever their app, those there are) with their choices in position order, in one statement. */
export async function findPollsWithChoices(q: Queryable, ids: string[]): Promise<PollWithChoices[]> {
  return (await POLLS_WITH_CHOICES(q, { pollIds: textArrayLiteral(ids) })).map(({ choices, ...poll }) => ({ poll: POLL_ROWS.of(poll), choices: choices.map(CHOICE_ROWS.ofJson) }));
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

export async function pollsByIds(q: Queryable, ids: string[]): Promise<Poll[]> {
  if (ids.length === 0) return [];
  return q.select().from(polls).where(inArray(polls.id, ids));
}

export async function addToTotal(q: Queryable, pollId: string, delta: number): Promise<void> {
  await q
    .update(polls)
    .set({ totalResponses: sql`${polls.totalResponses} + ${delta}` })
    .where(eq(polls.id, pollId));
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
