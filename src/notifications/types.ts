import type { notifications } from '../db/schema/index.js';

/** A notification as stored: what it is about is named by `entity` and `itemId`, not copied. */
export type Notification = typeof notifications.$inferSelect;
/** A notification to store, with the view it is about (pushed live, not stored). */
export type NewNotification = typeof notifications.$inferInsert & { payload: unknown };
/**
 * A notification with its payload: as written and pushed, the view published; as answered, the
 * item as it is now, or null when it is gone.
 */
export type NotificationWithPayload = Notification & { payload: unknown };
