import { and, eq, or, sql } from 'drizzle-orm';
import { textArrayLiteral, plannedOnce } from '../../db/arrays.js';
import { statementOnce, type Queryable } from '../../db/client.js';
import { commentConversations, commentReports, comments } from '../../db/schema/comments.js';
import { tableRows } from '../../db/table-rows.js';
import type { Comment, CommentPatch, CommentRow, Settable } from '../types.js';

export const COMMENT_ROWS = tableRows(comments);
const COMMENTS_BY_ID = statementOnce<Record<string, unknown>>(
  'comments_by_id_with_conversation',
  sql`select ${COMMENT_ROWS.list}, (select ${commentConversations.conversationId} from ${commentConversations} where ${commentConversations.key} = ${comments.conversationKey}) as "ofConversation"
    from ${comments} where ${comments.appId} = ${sql.placeholder('app')} and ${comments.id} = any(${plannedOnce('ids', 'text[]')})`,
);

export async function findComment(q: Queryable, conversationKey: string, id: string): Promise<Comment | undefined> {
  const [row] = await q
    .select()
    .from(comments)
    .where(and(eq(comments.conversationKey, conversationKey), eq(comments.id, id)));
  return row;
}

export async function findCommentInApp(q: Queryable, appId: string, id: string): Promise<Comment | undefined> {
  const [row] = await q
    .select()
    .from(comments)
    .where(and(eq(comments.appId, appId), eq(comments.id, id)));
  return row;
}

/** Comments of an app by id, each with its conversation's id, in one named statement; a comment whose conversation is gone is left out. */
export async function findCommentsWithConversation(q: Queryable, appId: string, ids: string[]): Promise<{ comment: Comment; conversationId: string }[]> {
  if (ids.length === 0) return [];
  return (await COMMENTS_BY_ID(q, { app: appId, ids: textArrayLiteral(ids) })).flatMap(({ ofConversation, ...row }) =>
    typeof ofConversation === 'string' ? [{ comment: COMMENT_ROWS.of(row), conversationId: ofConversation }] : [],
  );
}

/** Locks the comment row for the rest of the transaction, so changes to it apply one at a time. */
export async function lockComment(q: Queryable, conversationKey: string, id: string): Promise<Comment | undefined> {
  const [row] = await q
    .select()
    .from(comments)
    .where(and(eq(comments.conversationKey, conversationKey), eq(comments.id, id)))
    .for('update');
  return row;
}

export async function insertComments(q: Queryable, rows: CommentRow[]): Promise<void> {
  await q.insert(comments).values(rows);
}

export async function updateComment(q: Queryable, id: string, patch: Settable<CommentPatch>): Promise<Comment | undefined> {
  const [row] = await q.update(comments).set(patch).where(eq(comments.id, id)).returning();
  return row;
}

/** `active` after an undelete: shown unless moderation holds it back (computed on the row, so a concurrent decision counts; isHeld is the rule on a row read). */
export const activeUnlessHeld = sql<boolean>`${comments.moderation} in ('na', 'approved')`;

/** Settles a queued comment (pending or flagged); undefined when it was not (or no longer) in the queue. */
export async function settleQueued(q: Queryable, id: string, approve: boolean, now: Date): Promise<Comment | undefined> {
  const [row] = await q
    .update(comments)
    .set({ moderation: approve ? 'approved' : 'rejected', active: approve ? sql`not ${comments.deleted}` : false, modified: now })
    .where(and(eq(comments.id, id), sql`${comments.moderation} in ('pending', 'flagged')`))
    .returning();
  return row;
}

/** Adds delta to a comment's replycount; false when the comment is gone. */
export async function adjustReplyCount(q: Queryable, conversationKey: string, id: string, delta: number): Promise<boolean> {
  const found = await q
    .update(comments)
    .set({ replyCount: sql`${comments.replyCount} + ${delta}` })
    .where(and(eq(comments.conversationKey, conversationKey), eq(comments.id, id)))
    .returning({ id: comments.id });
  return found.length > 0;
}

/** Removes a comment and every reply below it; returns how many rows went. */
export async function deleteSubtree(q: Queryable, conversationKey: string, id: string): Promise<number> {
  const removed = await q
    .delete(comments)
    .where(and(eq(comments.conversationKey, conversationKey), or(eq(comments.id, id), sql`${comments.hierarchy} @> ${JSON.stringify([id])}::jsonb`)))
    .returning({ id: comments.id });
  return removed.length;
}

/** Removes every comment of a conversation; returns how many rows went. */
export async function deleteAllInConversation(q: Queryable, conversationKey: string): Promise<number> {
  const removed = await q.delete(comments).where(eq(comments.conversationKey, conversationKey)).returning({ id: comments.id });
  return removed.length;
}

/** Records a report once per reporter; false when this reporter had reported the comment already. */
export async function insertReport(q: Queryable, commentId: string, userId: string, reportType: string): Promise<boolean> {
  const inserted = await q.insert(commentReports).values({ commentId, userId, reportType, added: new Date() }).onConflictDoNothing().returning({ u: commentReports.userId });
  return inserted.length > 0;
}

/** Recomputes the reports the comment row keeps. */
export async function retallyReports(q: Queryable, id: string): Promise<Comment | undefined> {
  const p = commentReports;
  return updateComment(q, id, {
    reports: sql`(select coalesce(jsonb_agg(jsonb_build_object('userid', ${p.userId}, 'reason', ${p.reportType}) order by ${p.added}, ${p.userId}), '[]'::jsonb) from ${p} where ${eq(p.commentId, id)})`,
  });
}

/** Logically deletes every comment of a user in an application; returns how many changed. */
export async function deleteAllOfUser(q: Queryable, appId: string, userId: string, now: Date): Promise<number> {
  const changed = await q
    .update(comments)
    .set({ deleted: true, active: false, modified: now })
    .where(and(eq(comments.appId, appId), eq(comments.userId, userId), eq(comments.deleted, false)))
    .returning({ id: comments.id });
  return changed.length;
}
