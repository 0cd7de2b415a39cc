import { and, desc, eq, inArray, or, sql } from 'drizzle-orm';
import { textArrayLiteral, plannedOnce } from '../../db/arrays.js';
import { statementOnce, type Queryable } from '../../db/client.js';
import { commentConversations } from '../../db/schema/comments.js';
import { tableRows } from '../../db/table-rows.js';
import type { Conversation, ConversationPatch, ConversationRow, ListAfter, Settable } from '../types.js';

const CONVERSATION_ROWS = tableRows(commentConversations);
const t = commentConversations;
/** By id on every read and write of comments, by custom id when an article is opened: named statements, for a batch of ids. */
const BY_IDS = statementOnce<Record<string, unknown>>(
  'comment_conversations_by_id',
  sql`select ${CONVERSATION_ROWS.list} from ${t} where ${t.appId} = ${sql.placeholder('app')} and ${t.conversationId} = any(${plannedOnce('ids', 'text[]')})`,
);
const BY_CUSTOM_IDS = statementOnce<Record<string, unknown>>(
  'comment_conversations_by_custom_id',
  sql`select ${CONVERSATION_ROWS.list} from ${t} where ${t.appId} = ${sql.placeholder('app')} and ${t.customId} = any(${plannedOnce('ids', 'text[]')})`,
);

export async function findConversation(q: Queryable, appId: string, conversationId: string): Promise<Conversation | undefined> {
  return (await findConversationsById(q, appId, [conversationId]))[0];
}

/** The app's conversations of these ids (those there are). */
export async function findConversationsById(q: Queryable, appId: string, conversationIds: string[]): Promise<Conversation[]> {
  return (await BY_IDS(q, { app: appId, ids: textArrayLiteral(conversationIds) })).map(CONVERSATION_ROWS.of);
}

/** The app's conversations of these custom ids (those there are). */
export async function findConversationsByCustomId(q: Queryable, appId: string, customIds: string[]): Promise<Conversation[]> {
  return (await BY_CUSTOM_IDS(q, { app: appId, ids: textArrayLiteral(customIds) })).map(CONVERSATION_ROWS.of);
}

export async function findConversationByKey(q: Queryable, key: string): Promise<Conversation | undefined> {
  const [row] = await q.select().from(commentConversations).where(eq(commentConversations.key, key));
  return row;
}

export async function findConversationsByKeys(q: Queryable, keys: string[]): Promise<Conversation[]> {
  if (keys.length === 0) return [];
  return q.select().from(commentConversations).where(inArray(commentConversations.key, keys));
}

/** Conversations named by id or customid, in one query. */
export async function findConversations(q: Queryable, appId: string, ids: string[], customIds: string[]): Promise<Conversation[]> {
  return q
    .select()
    .from(commentConversations)
    .where(
      and(
        eq(commentConversations.appId, appId),
        or(ids.length > 0 ? inArray(commentConversations.conversationId, ids) : sql`false`, customIds.length > 0 ? inArray(commentConversations.customId, customIds) : sql`false`),
      ),
    );
}

/** Inserts a new conversation; undefined when its conversationid exists (a concurrent create won). */
export async function insertConversation(q: Queryable, row: ConversationRow): Promise<Conversation | undefined> {
  const [created] = await q
    .insert(commentConversations)
    .values(row)
    .onConflictDoNothing({ target: [commentConversations.appId, commentConversations.conversationId] })
    .returning();
  return created;
}

export async function updateConversation(q: Queryable, key: string, patch: Settable<ConversationPatch>): Promise<Conversation | undefined> {
  const [row] = await q.update(commentConversations).set(patch).where(eq(commentConversations.key, key)).returning();
  return row;
}

export async function adjustCommentCount(q: Queryable, key: string, delta: number): Promise<void> {
  if (delta === 0) return;
  await q
    .update(commentConversations)
    .set({ commentCount: sql`${commentConversations.commentCount} + ${delta}` })
    .where(eq(commentConversations.key, key));
}

export async function deleteConversation(q: Queryable, key: string): Promise<void> {
  await q.delete(commentConversations).where(eq(commentConversations.key, key));
}

/** Newest first, keyset on (added, key); optionally one property's. */
export async function listConversations(q: Queryable, appId: string, property: string | undefined, after: ListAfter | undefined, limit: number): Promise<Conversation[]> {
  const t = commentConversations;
  return q
    .select()
    .from(t)
    .where(
      and(
        eq(t.appId, appId),
        property === undefined ? undefined : eq(t.property, property),
        after === undefined ? undefined : sql`(${t.added}, ${t.key}) < (${after.added}::timestamptz, ${after.key})`,
      ),
    )
    .orderBy(desc(t.added), desc(t.key))
    .limit(limit);
}
