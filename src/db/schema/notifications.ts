import { boolean, index, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { ts } from './columns.js';

export const notifications = pgTable(
  'notifications',
  {
    id: text('id').notNull(),
    appId: text('app_id').notNull(),
    /** The user notified. */
    userId: text('user_id').notNull(),
    /** reply, quote, mention or reaction. */
    type: text('type').notNull(),
    eventType: text('event_type').notNull(),
    entity: text('entity').notNull(),
    /** Room id for chat, conversation id for comments. */
    containerId: text('container_id').notNull(),
    containerCustomId: text('container_custom_id'),
    /** The published chat event's or comment's id: the answers build the payload from it (src/notifications/payloads.ts). */
    itemId: text('item_id').notNull(),
    fromUserId: text('from_user_id').notNull(),
    read: boolean('read').notNull().default(false),
    whenRead: ts('when_read'),
    added: ts('added').notNull().defaultNow(),
  },
  // Every read and change names the app and user first, so the key leads with them: one index
  // serves lookups by id and a user's pages, one fewer for each insert (ids are UUIDv7, unique
  // without a key of their own).
  (t) => [primaryKey({ columns: [t.appId, t.userId, t.id] }), index('notifications_item_idx').on(t.appId, t.userId, t.itemId)],
);
