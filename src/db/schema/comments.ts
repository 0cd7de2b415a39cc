import { sql } from 'drizzle-orm';
import { bigint, boolean, customType, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { customColumns, SMALL_PENDING_LIST } from './columns.js';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date', precision: 3 });

/** Aggregate of reactions or votes kept on the row it belongs to, so a page reads one table. */
export interface Tally {
  type: string;
  /** Exact. */
  count: number;
  /** The latest users (REACTION_USERS_SHOWN), in the order they reacted or voted; the full list is paged by its own route. */
  users: string[];
}

export interface CommentReport {
  userid: string;
  reason: string;
}

/**
 * Comment conversations. `key` is internal and never changes, so renaming a conversation
 * (replaceconversationid) touches one row: comments point at the key.
 */
export const commentConversations = pgTable(
  'comment_conversations',
  {
    key: text('key').primaryKey(),
    appId: text('app_id').notNull(),
    conversationId: text('conversation_id').notNull(),
    ownerUserId: text('owner_user_id'),
    property: text('property').notNull(),
    moderation: text('moderation').notNull(),
    maxReports: integer('max_reports').notNull().default(3),
    enableProfanityFilter: boolean('enable_profanity_filter').notNull().default(true),
    profanityFilterMode: text('profanity_filter_mode').notNull().default('mask'),
    title: text('title').notNull().default(''),
    maxCommentLen: integer('max_comment_len').notNull().default(256),
    commentCount: integer('comment_count').notNull().default(0),
    open: boolean('open').notNull().default(true),
    ...customColumns(),
    reactions: jsonb('reactions').$type<Tally[]>().notNull().default([]),
    likeCount: integer('like_count').notNull().default(0),
    added: ts('added').notNull(),
    whenModified: ts('when_modified').notNull(),
    /**
     * Moves with every committed change of the row and of the conversation's comments (triggers,
     * migration 0015): a stored first page made at one revision is what a read would make now
     * only while the revision is the same (commentPageRenderings).
     */
    revision: bigint('revision', { mode: 'number' }).notNull().default(0),
  },
  (t) => [
    uniqueIndex('comment_conversations_id_idx').on(t.appId, t.conversationId),
    uniqueIndex('comment_conversations_customid_idx').on(t.appId, t.customId),
    index('comment_conversations_property_idx').on(t.appId, t.property, t.added, t.key),
    index('comment_conversations_added_idx').on(t.appId, t.added, t.key),
  ],
);

export const commentConversationReactions = pgTable(
  'comment_conversation_reactions',
  {
    conversationKey: text('conversation_key')
      .notNull()
      .references(() => commentConversations.key, { onDelete: 'cascade' }),
    userId: text('user_id').notNull(),
    type: text('type').notNull(),
    added: ts('added').notNull(),
  },
  (t) => [primaryKey({ columns: [t.conversationKey, t.type, t.userId] }), index('comment_conversation_reactions_latest_idx').on(t.conversationKey, t.type, t.added, t.userId)],
);

/**
 * Comments and replies. Counts and the reaction, vote and report aggregates are kept on the
 * row (updated under the row's lock in the transaction that changes them), so a page of
 * comments is one indexed range read. `parentId` is '' for top-level comments; `rootId` is the
 * top-level ancestor ('' for top-level comments themselves).
 */
export const comments = pgTable(
  'comments',
  {
    id: text('id').primaryKey(),
    appId: text('app_id').notNull(),
    conversationKey: text('conversation_key')
      .notNull()
      .references(() => commentConversations.key, { onDelete: 'cascade' }),
    parentId: text('parent_id').notNull().default(''),
    rootId: text('root_id').notNull().default(''),
    hierarchy: jsonb('hierarchy').$type<string[]>().notNull().default([]),
    userId: text('user_id').notNull(),
    commentType: text('comment_type').notNull().default('comment'),
    body: text('body').notNull(),
    originalBody: text('original_body').notNull(),
    hashtags: jsonb('hashtags').$type<string[]>().notNull().default([]),
    mentions: jsonb('mentions').$type<string[]>().notNull().default([]),
    ...customColumns(),
    edited: boolean('edited').notNull().default(false),
    censored: boolean('censored').notNull().default(false),
    deleted: boolean('deleted').notNull().default(false),
    /** Shown in default lists: not deleted and not held or hidden by moderation. */
    active: boolean('active').notNull().default(true),
    /** na, pending (pre-moderation), flagged (reports), approved, rejected. */
    moderation: text('moderation').notNull().default('na'),
    likeCount: integer('like_count').notNull().default(0),
    replyCount: integer('reply_count').notNull().default(0),
    voteCount: integer('vote_count').notNull().default(0),
    voteScore: integer('vote_score').notNull().default(0),
    reactions: jsonb('reactions').$type<Tally[]>().notNull().default([]),
    votes: jsonb('votes').$type<Tally[]>().notNull().default([]),
    reports: jsonb('reports').$type<CommentReport[]>().notNull().default([]),
    added: ts('added').notNull(),
    modified: ts('modified').notNull(),
  },
  (t) => [
    index('comments_by_time_idx').on(t.conversationKey, t.parentId, t.added, t.id),
    index('comments_by_likes_idx').on(t.conversationKey, t.parentId, t.likeCount, t.added, t.id),
    index('comments_by_score_idx').on(t.conversationKey, t.parentId, t.voteScore, t.added, t.id),
    index('comments_by_replies_idx').on(t.conversationKey, t.parentId, t.replyCount, t.added, t.id),
    index('comments_by_root_idx').on(t.conversationKey, t.rootId, t.added, t.id),
    index('comments_hierarchy_idx').using('gin', t.hierarchy),
    index('comments_user_idx').on(t.appId, t.userId),
    uniqueIndex('comments_customid_idx').on(t.appId, t.customId),
    index('comments_queue_idx').on(t.appId, t.added, t.id).where(sql`${t.moderation} in ('pending', 'flagged')`),
  ],
);

export const commentReactions = pgTable(
  'comment_reactions',
  {
    commentId: text('comment_id')
      .notNull()
      .references(() => comments.id, { onDelete: 'cascade' }),
    userId: text('user_id').notNull(),
    type: text('type').notNull(),
    added: ts('added').notNull(),
  },
  (t) => [primaryKey({ columns: [t.commentId, t.type, t.userId] }), index('comment_reactions_latest_idx').on(t.commentId, t.type, t.added, t.userId)],
);

export const commentVotes = pgTable(
  'comment_votes',
  {
    commentId: text('comment_id')
      .notNull()
      .references(() => comments.id, { onDelete: 'cascade' }),
    userId: text('user_id').notNull(),
    vote: text('vote').notNull(),
    added: ts('added').notNull(),
  },
  (t) => [primaryKey({ columns: [t.commentId, t.userId] }), index('comment_votes_latest_idx').on(t.commentId, t.vote, t.added, t.userId)],
);

export const commentReports = pgTable(
  'comment_reports',
  {
    commentId: text('comment_id')
      .notNull()
      .references(() => comments.id, { onDelete: 'cascade' }),
    userId: text('user_id').notNull(),
    reportType: text('report_type').notNull(),
    added: ts('added').notNull(),
  },
  (t) => [primaryKey({ columns: [t.commentId, t.userId] })],
);

const bytea = customType<{ data: Buffer }>({ dataType: () => 'bytea' });

/**
 * First pages of conversations as sent, kept so that a conversation nobody read recently is
 * answered with one statement (src/comments/services/stored-pages.ts). A page holds while its
 * conversation's revision is the one it was made with, while none of the users it shows as absent
 * has come, and until `expiresAt` (a shown user's ban or mute runs out); a change of a user it
 * shows drops it (migration 0016). A read that finds none makes it again. At most a few variants
 * (sort, limit, ...) per conversation.
 */
export const commentPageRenderings = pgTable(
  'comment_page_renderings',
  {
    conversationKey: text('conversation_key')
      .notNull()
      .references(() => commentConversations.key, { onDelete: 'cascade' }),
    /** The page's parameters (sort, direction, limit, ...). */
    variant: text('variant').notNull(),
    conversationRevision: bigint('conversation_revision', { mode: 'number' }).notNull(),
    userPool: text('user_pool').notNull(),
    /** The users the page shows, as they were (a change of one drops the page). */
    userIds: text('user_ids').array().notNull(),
    /** The users the page shows as not there (one created since ends the page). */
    absentUserIds: text('absent_user_ids').array().notNull(),
    expiresAt: ts('expires_at'),
    /**
     * The page's JSON as sent: bytes, which the embedded database's driver hands over as they are
     * (src/db/pglite-wire.ts). Not named `json`: a keyword since Postgres 16, quoted by PGlite's
     * catalog and not by Postgres 15's, which a restore from one into the other compares.
     */
    page: bytea('page').notNull(),
  },
  (t) => [primaryKey({ columns: [t.conversationKey, t.variant] }), index('comment_page_renderings_user_ids_idx').using('gin', t.userIds).with(SMALL_PENDING_LIST)],
);
