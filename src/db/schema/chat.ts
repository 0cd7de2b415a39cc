import { sql } from 'drizzle-orm';
import { bigint, boolean, index, integer, jsonb, pgTable, primaryKey, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { customColumns, SMALL_PENDING_LIST, ts } from './columns.js';

/**
 * A reaction on a chat event as the event row keeps it for views: its type (`like`,
 * `emoji:...`), how many reacted, and the latest of them (oldest first, at most
 * REACTION_USERS_SHOWN). Everyone who reacted is in chat_reactions.
 */
export interface StoredReaction {
  type: string;
  count: number;
  users: string[];
}

export const chatRooms = pgTable(
  'chat_rooms',
  {
    id: text('id').primaryKey(),
    appId: text('app_id').notNull(),
    customId: text('custom_id'),
    name: text('name').notNull(),
    description: text('description').notNull().default(''),
    pictureUrl: text('picture_url').notNull().default(''),
    ownerId: text('owner_id'),
    customType: text('custom_type').notNull().default(''),
    customPayload: text('custom_payload').notNull().default(''),
    customTags: jsonb('custom_tags').$type<string[]>().notNull().default([]),
    customField1: text('custom_field1').notNull().default(''),
    customField2: text('custom_field2').notNull().default(''),
    enableActions: boolean('enable_actions').notNull().default(true),
    enableEnterAndExit: boolean('enable_enter_and_exit').notNull().default(true),
    enableProfanityFilter: boolean('enable_profanity_filter').notNull().default(true),
    enableAutoExpireSessions: boolean('enable_auto_expire_sessions').notNull().default(true),
    open: boolean('open').notNull().default(true),
    private: boolean('private').notNull().default(false),
    moderation: text('moderation').$type<'pre' | 'post'>().notNull().default('post'),
    maxReports: integer('max_reports').notNull().default(3),
    delayMessageSeconds: integer('delay_message_seconds').notNull().default(0),
    /** Participants currently in the room (kept with chat_participants in the same transaction). */
    inRoom: integer('in_room').notNull().default(0),
    /** The feed's sequence counter: the seq of the newest event that entered the feed. Never goes back. */
    lastSeq: bigint('last_seq', { mode: 'number' }).notNull().default(0),
    /**
     * Moves with every statement that changes or deletes events of the room in place (a trigger on
     * chat_events, migration 0009). With last_seq it tells whether a page of the room's events read
     * earlier is still what a read would return now.
     */
    eventsRevision: bigint('events_revision', { mode: 'number' }).notNull().default(0),
    lastMessageAt: ts('last_message_at'),
    added: ts('added').notNull().defaultNow(),
    whenModified: ts('when_modified').notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('chat_rooms_custom_id_idx').on(t.appId, t.customId),
    index('chat_rooms_app_idx').on(t.appId, t.id),
    // filterbyname is a case-insensitive substring: trigrams find it without reading every room (migration 0012).
    index('chat_rooms_name_trgm_idx').using('gin', t.name.op('gin_trgm_ops')).with(SMALL_PENDING_LIST),
  ],
);

export type ModerationState = 'na' | 'pending' | 'flagged' | 'approved' | 'rejected';

/**
 * The columns no statement filters, sorts or joins on keep no planner statistics (migration 0014,
 * which drizzle's schema cannot say): a statement that starts filtering on one sets its target back.
 */
export const chatEvents = pgTable(
  'chat_events',
  {
    id: text('id').primaryKey(),
    appId: text('app_id').notNull(),
    roomId: text('room_id').notNull(),
    /** Position in the room's feed; null while the event waits (pre-moderation, message delay). */
    seq: bigint('seq', { mode: 'number' }),
    eventType: text('event_type').notNull(),
    /** Null for events the service makes without a user (room opened/closed). */
    userId: text('user_id'),
    body: text('body').notNull().default(''),
    originalBody: text('original_body').notNull().default(''),
    ...customColumns(),
    /** The quoted event (quote), the reacted-to event (reaction), the changed event (replace, remove). */
    replyToId: text('reply_to_id'),
    /** Threaded replies: the direct parent and all ancestors, root first. */
    parentId: text('parent_id'),
    hierarchy: jsonb('hierarchy').$type<string[]>().notNull().default([]),
    hashtags: jsonb('hashtags').$type<string[]>().notNull().default([]),
    reactions: jsonb('reactions').$type<StoredReaction[]>().notNull().default([]),
    likeCount: integer('like_count').notNull().default(0),
    replyCount: integer('reply_count').notNull().default(0),
    /** Reports on this event ({userid, reason}); kept here so views need no join. */
    reports: jsonb('reports').$type<{ userid: string; reason: string }[]>().notNull().default([]),
    reportCount: integer('report_count').notNull().default(0),
    mutedBy: jsonb('muted_by').$type<string[]>().notNull().default([]),
    edited: boolean('edited').notNull().default(false),
    deleted: boolean('deleted').notNull().default(false),
    active: boolean('active').notNull().default(true),
    shadowban: boolean('shadowban').notNull().default(false),
    moderation: text('moderation').$type<ModerationState>().notNull().default('na'),
    /** When a delayed (delaymessageseconds) event is due to enter the feed; null otherwise. */
    releaseAt: ts('release_at'),
    /** Unix epoch milliseconds of `added`. */
    ts: bigint('ts', { mode: 'number' }).notNull(),
    added: ts('added').notNull().defaultNow(),
    whenModified: ts('when_modified').notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('chat_events_feed_idx').on(t.roomId, t.seq),
    // A user's events in a room (by seq) and in the whole app: one index for both, one write fewer per event.
    index('chat_events_user_idx').on(t.userId, t.roomId, t.seq),
    index('chat_events_type_idx').on(t.roomId, t.eventType, t.seq),
    index('chat_events_ts_idx').on(t.roomId, t.ts),
    index('chat_events_waiting_idx').on(t.appId, t.moderation).where(sql`${t.seq} is null`),
    index('chat_events_queue_idx').on(t.appId, t.id).where(sql`${t.moderation} in ('pending', 'flagged')`),
    // Most events are no thread's reply: they write no entry here.
    index('chat_events_parent_idx').on(t.parentId).where(sql`${t.parentId} is not null`),
    // searchevents' body is a case-insensitive substring: trigrams find it without reading the room's history.
    index('chat_events_body_trgm_idx').using('gin', t.body.op('gin_trgm_ops')),
  ],
);

/** A user's live session in a room; gone on exit, bounce or idle expiry. */
export const chatParticipants = pgTable(
  'chat_participants',
  {
    roomId: text('room_id').notNull(),
    userId: text('user_id').notNull(),
    appId: text('app_id').notNull(),
    added: ts('added').notNull().defaultNow(),
    lastSeen: ts('last_seen').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.roomId, t.userId] }), index('chat_participants_seen_idx').on(t.lastSeen)],
);

/** Rooms a user joined and did not leave; survives session expiry and restarts. */
export const chatSubscriptions = pgTable(
  'chat_subscriptions',
  {
    id: text('id').notNull().unique(),
    roomId: text('room_id').notNull(),
    userId: text('user_id').notNull(),
    appId: text('app_id').notNull(),
    persist: boolean('persist').notNull().default(true),
    added: ts('added').notNull().defaultNow(),
    updated: ts('updated').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.roomId, t.userId] }), index('chat_subscriptions_user_idx').on(t.appId, t.userId, t.roomId)],
);

export type RoomEffectKind = 'bounce' | 'mute' | 'shadowban' | 'flag';

/** Room-scoped user effects; an effect with `expires` in the past is not in force. */
export const chatRoomEffects = pgTable(
  'chat_room_effects',
  {
    roomId: text('room_id').notNull(),
    userId: text('user_id').notNull(),
    effect: text('effect').$type<RoomEffectKind>().notNull(),
    appId: text('app_id').notNull(),
    expires: ts('expires'),
    reason: text('reason').notNull().default(''),
    byUserId: text('by_user_id'),
    added: ts('added').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.roomId, t.userId, t.effect] })],
);

/** Who may join a private room. */
export const chatRoomPermissions = pgTable(
  'chat_room_permissions',
  {
    roomId: text('room_id').notNull(),
    userId: text('user_id').notNull(),
    appId: text('app_id').notNull(),
    allow: boolean('allow').notNull(),
    added: ts('added').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.roomId, t.userId] })],
);

/**
 * Who reacted how to a chat event: one row per user and reaction type; `n` orders them (latest last).
 * No foreign key to chat_events, whose check would cost every like a query of its own: every writer
 * inserts only for targets its statement or transaction holds locked `for update` (store/reactions.ts),
 * and a statement trigger on chat_events deletes the reactions of deleted events (migration 0008).
 */
export const chatReactions = pgTable(
  'chat_reactions',
  {
    eventId: text('event_id').notNull(),
    type: text('type').notNull(),
    userId: text('user_id').notNull(),
    n: bigint('n', { mode: 'number' }).notNull().generatedAlwaysAsIdentity(),
    added: ts('added').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.eventId, t.userId, t.type] }), index('chat_reactions_latest_idx').on(t.eventId, t.type, t.n)],
);
