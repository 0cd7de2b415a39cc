import type { notifications } from '../db/schema/index.js';

/** A notification as stored: `payload` is the JSON text of the chat event or comment it is about. */
export type Notification = typeof notifications.$inferSelect;
/** A notification to store: `payload` is the view it is about (stored as the JSON made for its push). */
export type NewNotification = Omit<typeof notifications.$inferInsert, 'payload'> & { payload: unknown };
/** A notification with its payload as the view: as written and pushed, and as answered. */
export type NotificationWithPayload = Omit<Notification, 'payload'> & { payload: unknown };
