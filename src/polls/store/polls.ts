import { and, asc, desc, eq, inArray, lt, ne, sql } from 'drizzle-orm';
import { textArrayLiteral, plannedOnce } from '../../db/arrays.js';
import { statementOnce, type Queryable } from '../../db/client.js';
import { pollChoices, polls } from '../../db/schema/index.js';
import { tableRows } from '../../db/table-rows.js';
import { groupBy } from '../../group-by.js';
import type { Choice, NewChoice, NewPoll, Poll, PollStandingsRead, PollWithChoices } from '../types.js';

const POLL_ROWS = tableRows(polls);
const CHOICE_ROWS = tableRows(pollChoices);
/** Polls by id and their choices (their details, their standings): named statements, as polls nobody read recently are read by them, several at once. */
const POLLS_BY_ID = statementOnce<Record<string, unknown>>('polls_by_id', sql`select ${POLL_ROWS.list} from ${polls} where ${polls.id} = any(${plannedOnce('pollIds', 'text[]')})`);
const CHOICES_OF_POLLS = statementOnce<Record<string, unknown>>(
  'poll_choices_of_polls',
  sql`select ${CHOICE_ROWS.list} from ${pollChoices} where ${pollChoices.pollId} = any(${plannedOnce('pollIds', 'text[]')})
    order by ${pollChoices.pollId}, ${pollChoices.position}, ${pollChoices.id}`,
);

/**
 * What standings show of polls (their app, and each choice's title, position and count), in one
 * statement: a crowd's standings of polls nobody read recently, and the live push after votes.
 * A poll without choices comes back as one row of nulls beside its id.
 */
const STANDINGS_OF_POLLS = statementOnce<{ poll: string; app: string; id: string | null; title: string | null; position: number | null; count: number | null }>(
  'poll_standings_of_polls',
  sql`select p.id as poll, p.app_id as app, c.id, c.title, c.position, c.response_count as count
    from polls p left join poll_choices c on c.poll_id = p.id
    where p.id = any(${plannedOnce('pollIds', 'text[]')})
    order by p.id, c.position, c.id`,
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

/** The standings of these polls (whatever their app, those there are), each poll's choices in position order. */
export async function findStandings(q: Queryable, ids: string[]): Promise<PollStandingsRead[]> {
  const found = new Map<string, PollStandingsRead>();
  for (const row of await STANDINGS_OF_POLLS(q, { pollIds: textArrayLiteral(ids) })) {
    let standings = found.get(row.poll);
    if (standings === undefined) found.set(row.poll, (standings = { pollId: row.poll, appId: row.app, choices: [] }));
    if (row.id !== null) standings.choices.push({ id: row.id, title: row.title ?? '', position: row.position ?? 0, responseCount: row.count ?? 0 });
  }
  return [...found.values()];
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
