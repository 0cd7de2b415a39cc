import type { SQL } from 'drizzle-orm';
import type { commentConversations, comments } from '../db/schema/comments.js';

export type Conversation = typeof commentConversations.$inferSelect;
export type Comment = typeof comments.$inferSelect;

/** Moderation holds the comment back (pending, flagged or rejected): it is shown in no list (activeUnlessHeld is the same rule in SQL). */
export const isHeld = (comment: Comment): boolean => comment.moderation !== 'na' && comment.moderation !== 'approved';

/** A comment with its conversation. */
export interface CommentIn {
  comment: Comment;
  conversation: Conversation;
}

export type ConversationRow = typeof commentConversations.$inferInsert;
export type ConversationPatch = Partial<Omit<ConversationRow, 'key' | 'appId'>>;
export type CommentRow = typeof comments.$inferInsert;
export type CommentPatch = Partial<Omit<CommentRow, 'id' | 'appId' | 'conversationKey'>>;
/** Column values, or SQL computing them. */
export type Settable<T> = { [K in keyof T]?: T[K] | SQL };

/** Position after the last row of a time-ordered page: its added (ISO) and id. */
export interface TimeKey {
  a: string;
  i: string;
}

/** Position after the last conversation of a page (newest first): its added (ISO) and key. */
export interface ListAfter {
  added: string;
  key: string;
}

/** What a change to a comment is pushed live as. */
export type LiveType = 'comment.created' | 'comment.replied' | 'comment.edited' | 'comment.deleted' | 'comment.voted' | 'comment.reacted';
