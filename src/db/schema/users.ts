import { boolean, index, jsonb, pgTable, primaryKey, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { SMALL_PENDING_LIST, ts } from './columns.js';

export interface UserReportEntry {
  userid: string;
  issuedat: string;
  reason: string;
}

export const users = pgTable(
  'users',
  {
    pool: text('pool').notNull(),
    userId: text('user_id').notNull(),
    handle: text('handle').notNull(),
    handleLower: text('handle_lower').notNull(),
    displayName: text('display_name').notNull().default(''),
    pictureUrl: text('picture_url').notNull().default(''),
    profileUrl: text('profile_url').notNull().default(''),
    role: text('role').notNull().default('user'),
    customTags: jsonb('custom_tags').$type<string[]>().notNull().default([]),
    banned: boolean('banned').notNull().default(false),
    bannedUntil: ts('banned_until'),
    shadowBanned: boolean('shadow_banned').notNull().default(false),
    shadowBannedUntil: ts('shadow_banned_until'),
    muted: boolean('muted').notNull().default(false),
    mutedUntil: ts('muted_until'),
    /** Reports of this user (user/users/{userid}/report), carried on app.user as `reports`. */
    reports: jsonb('reports').$type<UserReportEntry[]>().notNull().default([]),
    added: ts('added').notNull().defaultNow(),
    whenModified: ts('when_modified').notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.pool, t.userId] }),
    uniqueIndex('users_handle_idx').on(t.pool, t.handleLower),
    // user/search: handle and userid prefixes, name substrings, all case-insensitive; trigrams serve the three.
    index('users_handle_trgm_idx').using('gin', t.handleLower.op('gin_trgm_ops')).with(SMALL_PENDING_LIST),
    index('users_user_id_trgm_idx').using('gin', t.userId.op('gin_trgm_ops')).with(SMALL_PENDING_LIST),
    index('users_display_name_trgm_idx').using('gin', t.displayName.op('gin_trgm_ops')).with(SMALL_PENDING_LIST),
  ],
);

export const userReports = pgTable(
  'user_reports',
  {
    id: text('id').primaryKey(),
    pool: text('pool').notNull(),
    userId: text('user_id').notNull(),
    reportedBy: text('reported_by').notNull(),
    reportType: text('report_type').notNull(),
    added: ts('added').notNull().defaultNow(),
  },
  (t) => [uniqueIndex('user_reports_once_idx').on(t.pool, t.userId, t.reportedBy), index('user_reports_queue_idx').on(t.pool, t.added)],
);
