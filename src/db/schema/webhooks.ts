import { boolean, index, integer, jsonb, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { ts } from './columns.js';

export const webhooks = pgTable(
  'webhooks',
  {
    id: text('id').primaryKey(),
    appId: text('app_id').notNull(),
    label: text('label').notNull(),
    url: text('url').notNull(),
    enabled: boolean('enabled').notNull().default(true),
    type: text('type').notNull(),
    events: jsonb('events').$type<string[]>().notNull(),
    requiredCustomTags: jsonb('required_custom_tags').$type<string[]>().notNull().default([]),
    entities: jsonb('entities').$type<string[]>().notNull().default([]),
    /** Failed deliveries in a row; at WEBHOOK_FAILURE_LIMIT the hook is disabled. */
    consecutiveFailures: integer('consecutive_failures').notNull().default(0),
    added: ts('added').notNull().defaultNow(),
    whenModified: ts('when_modified').notNull().defaultNow(),
  },
  (t) => [uniqueIndex('webhooks_label_idx').on(t.appId, t.label)],
);

// The delivery tables carry no foreign keys: they are written on the publishing path, where a
// per-row RI check costs as much as the row. Deleting a hook removes its rows (store.deleteHook).

/**
 * One message per (event, hook): the exact JSON body, written once. Every attempt signs these
 * bytes, and the log shows them as the entry's payload.
 */
export const webhookMessages = pgTable(
  'webhook_messages',
  {
    /** Also the Standard Webhooks message id (`webhook-id`), the same on every retry. */
    id: text('id').primaryKey(),
    webhookId: text('webhook_id').notNull(),
    appId: text('app_id').notNull(),
    eventType: text('event_type').notNull(),
    body: text('body').notNull(),
    added: ts('added').notNull().defaultNow(),
  },
  (t) => [index('webhook_messages_hook_idx').on(t.webhookId)],
);

/** Postpublish messages not yet delivered: stored with the event so a restart loses none. */
export const webhookOutbox = pgTable(
  'webhook_outbox',
  {
    id: text('id').primaryKey(),
    webhookId: text('webhook_id').notNull(),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: ts('next_attempt_at').notNull().defaultNow(),
    /** A worker holds the row until then; a crashed worker's claim lapses. */
    lockedUntil: ts('locked_until'),
  },
  (t) => [index('webhook_outbox_due_idx').on(t.nextAttemptAt)],
);

/** One row per attempt; the payload is the message's body. */
export const webhookLog = pgTable(
  'webhook_log',
  {
    id: text('id').primaryKey(),
    webhookId: text('webhook_id').notNull(),
    messageId: text('message_id').notNull(),
    eventType: text('event_type').notNull(),
    /** 0 when no HTTP answer came (timeout, refused connection). */
    statusCode: integer('status_code').notNull(),
    elapsedMs: integer('elapsed_ms').notNull(),
    completed: boolean('completed').notNull(),
    attempt: integer('attempt').notNull(),
    error: text('error').notNull().default(''),
    added: ts('added').notNull().defaultNow(),
  },
  (t) => [index('webhook_log_hook_idx').on(t.webhookId, t.id)],
);

/**
 * Published events of apps with an enabled postpublish hook, written in the transaction that
 * publishes them (chat events by the inserting statement, comments and reactions by triggers;
 * migrations 0005, 0006): the event's own commit records that its
 * deliveries are owed. Storing the deliveries removes the row in the same statement; a row left
 * by a crash, an outage or a dropped batch is found by the sweep and its deliveries built again.
 */
export const webhookJournal = pgTable('webhook_journal', {
  /** chat: the chat event id; comment: the comment id; commentreaction: `{comment id}:{user id}:{reaction}`. */
  key: text('key').primaryKey(),
  kind: text('kind').$type<'chat' | 'comment' | 'commentreaction'>().notNull(),
  appId: text('app_id').notNull(),
  added: ts('added').notNull().defaultNow(),
  /** A sweeping node holds the row until then; a crashed sweeper's claim lapses. */
  claimedUntil: ts('claimed_until'),
});
