import { boolean, index, pgTable, text } from 'drizzle-orm/pg-core';
import { ts } from './columns.js';

export const notifications = pgTable(
  'notifications',
  {
    id: text('id').primaryKey(),
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
    /** The published chat event's or comment's id. */
    itemId: text('item_id').notNull(),
    fromUserId: text('from_user_id').notNull(),
    /**
     * The JSON text of the chat event or comment notified about, as made for its push: stored as
     * text, the database never parses it (a crowd liking one event notifies its author per like).
     */
    payload: text('payload').notNull(),
    read: boolean('read').notNull().default(false),
    whenRead: ts('when_read'),
    added: ts('added').notNull().defaultNow(),
  },
  (t) => [index('notifications_user_idx').on(t.appId, t.userId, t.id), index('notifications_item_idx').on(t.appId, t.userId, t.itemId)],
);
