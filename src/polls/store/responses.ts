import { and, asc, eq, gt, sql } from 'drizzle-orm';
import { deletedCount, type Queryable } from '../../db/client.js';
import { pollChoices, pollLeads, pollResponses, polls } from '../../db/schema/index.js';
import type { Lead, NewLead, Poll, PollResponse } from '../types.js';

/** Removes every response and zeroes the counters; the caller holds the poll's lock. Returns the poll as updated. */
export async function clearResponses(q: Queryable, pollId: string): Promise<{ poll: Poll; removed: number }> {
  const removed = await deleteResponses(q, pollId);
  await q.update(pollChoices).set({ responseCount: 0 }).where(eq(pollChoices.pollId, pollId));
  const [poll] = await q.update(polls).set({ totalResponses: 0, whenModified: new Date() }).where(eq(polls.id, pollId)).returning();
  return { poll: poll as Poll, removed };
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
