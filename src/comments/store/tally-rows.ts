import { sql } from 'drizzle-orm';
import type { AnyPgColumn, PgTable } from 'drizzle-orm/pg-core';
import { rows, type Queryable } from '../../db/client.js';
import { commentConversationReactions, commentReactions, commentVotes } from '../../db/schema/comments.js';

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

/** A column's name in raw SQL. */
export const name = (column: AnyPgColumn) => sql.identifier(column.name);

const asDate = (v: Date | string) => (v instanceof Date ? v : new Date(v));

/** A page of the users who took one type, newest first, after (added, user) of the last page's last row. */
export async function pageUsers(q: Queryable, t: TallyRows, target: string, type: string, after: { a: string; i: string } | undefined, limit: number): Promise<{ userId: string; added: Date }[]> {
  const found = await rows<{ user_id: string; added: Date | string }>(
    q,
    sql`select r.${name(t.user)} as user_id, r.${name(t.added)} as added from ${t.table} r
      where r.${name(t.target)} = ${target} and r.${name(t.type)} = ${type}
      ${after === undefined ? sql`` : sql`and (r.${name(t.added)}, r.${name(t.user)}) < (${after.a}::timestamptz, ${after.i})`}
      order by r.${name(t.added)} desc, r.${name(t.user)} desc limit ${limit}`,
  );
  return found.map((r) => ({ userId: r.user_id, added: asDate(r.added) }));
}
