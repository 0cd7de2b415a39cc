import type { webhookLog, webhooks } from '../db/schema/index.js';

export type Webhook = typeof webhooks.$inferSelect;
export type LogEntry = typeof webhookLog.$inferSelect;
export type NewLogEntry = typeof webhookLog.$inferInsert;

/** What one HTTP attempt to a receiver came to. */
export interface Attempt {
  webhookId: string;
  messageId: string;
  eventType: string;
  attempt: number;
  /** 0 when no HTTP answer came. */
  statusCode: number;
  elapsedMs: number;
  error: string;
}

export const succeeded = (a: Attempt) => a.statusCode >= 200 && a.statusCode < 300;
