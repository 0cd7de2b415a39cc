import { index, pgTable, primaryKey, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { ts } from './columns.js';
import { chatEvents, chatRooms } from './chat.js';

/** Reports of chat messages: one per reporter per event; they go with the event. */
export const chatEventReports = pgTable(
  'chat_event_reports',
  {
    appId: text('app_id').notNull(),
    eventId: text('event_id')
      .notNull()
      .references(() => chatEvents.id, { onDelete: 'cascade' }),
    userId: text('user_id').notNull(),
    reportType: text('report_type').notNull(),
    added: ts('added').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.eventId, t.userId] })],
);

/** Reports of users at room level: one per reporter per reported user per room; they go with the room. */
export const chatRoomUserReports = pgTable(
  'chat_room_user_reports',
  {
    id: text('id').primaryKey(),
    appId: text('app_id').notNull(),
    roomId: text('room_id')
      .notNull()
      .references(() => chatRooms.id, { onDelete: 'cascade' }),
    userId: text('user_id').notNull(),
    reportedBy: text('reported_by').notNull(),
    reportType: text('report_type').notNull(),
    added: ts('added').notNull().defaultNow(),
  },
  (t) => [uniqueIndex('chat_room_user_reports_once_idx').on(t.roomId, t.userId, t.reportedBy), index('chat_room_user_reports_window_idx').on(t.roomId, t.userId, t.added)],
);
