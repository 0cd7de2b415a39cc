import { and, asc, desc, eq, inArray, lt, ne, sql } from 'drizzle-orm';
import { textArrayLiteral } from '../../db/arrays.js';
import { statementOnce, type Queryable } from '../../db/client.js';
import { pollChoices, polls } from '../../db/schema/index.js';
import { tableRows } from '../../db/table-rows.js';
import { groupBy } from '../../group-by.js';
import type { Choice, NewChoice, NewPoll, Poll, PollWithChoices } from '../types.js';

const POLL_ROWS = tableRows(polls);
const CHOICE_ROWS = tableRows(pollChoices);
/** Polls by id and their choices (their details, their standings): named statements, as polls nobody read recently are read by them, several at once. */
const POLLS_BY_ID = statementOnce<Record<string, unknown>>('polls_by_id', sql`select ${POLL_ROWS.list} from ${polls} where ${polls.id} = any(${sql.placeholder('pollIds')}::text[])`);
const CHOICES_OF_POLLS = statementOnce<Record<string, unknown>>(
  'poll_choices_of_polls',
  sql`select ${CHOICE_ROWS.list} from ${pollChoices} where ${pollChoices.pollId} = any(${sql.placeholder('pollIds')}::text[])
    order by ${pollChoices.pollId}, ${pollChoices.position}, ${pollChoices.id}`,
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
  const [row] = await POLLS_BY_ID(q, { pollIds: textArrayLiteral([id]) });
  return row === undefined || row['appId'] !== appId ? undefined : POLL_ROWS.of(row);
}

/** These polls (whatever their app, those there are) with their choices in position order: a statement for the polls, one for their choices. */
export async function findPollsWithChoices(q: Queryable, ids: string[]): Promise<PollWithChoices[]> {
  const pollIds = textArrayLiteral(ids);
  const [found, choices] = await Promise.all([POLLS_BY_ID(q, { pollIds }), CHOICES_OF_POLLS(q, { pollIds })]);
  const byPoll = groupBy(choices.map(CHOICE_ROWS.of), (c) => c.pollId);
  return found.map((row) => {
    const poll = POLL_ROWS.of(row);
    return { poll, choices: byPoll.get(poll.id) ?? [] };
  });
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
