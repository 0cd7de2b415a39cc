import type { webhookLog, webhooks } from '../db/schema/index.js';
import type { JournalKind } from '../events/journal-sources.js';

export type Webhook = typeof webhooks.$inferSelect;
export type LogEntry = typeof webhookLog.$inferSelect;
export type NewLogEntry = typeof webhookLog.$inferInsert;
/** A log entry with the body of the message it sent. */
export type LogEntryWithPayload = LogEntry & { payload: string | null };
export type WebhookFields = Pick<Webhook, 'label' | 'url' | 'enabled' | 'type' | 'events' | 'requiredCustomTags' | 'entities'>;

/** A message to a hook, with the body built when the event was published. */
export interface Message {
  id: string;
  webhookId: string;
  appId: string;
  eventType: string;
  body: string;
}

/** A postpublish delivery to store in the outbox. */
export interface OutboxRow extends Message {
  /** The event's key in webhook_journal. */
  journalKey: string;
}

/**
 * Deliveries owed for journalled events: the events' journal keys and their rows (none for an
 * event no hook's filters pass). They are stored only with the journal rows they settle, and
 * only when `views[i]`, the hooks key i's rows were built from (see hooksView), is still the
 * app's: rows built from a stale copy of the hooks leave the event to the journal sweep.
 */
export interface Owed {
  keys: string[];
  views: string[];
  rows: OutboxRow[];
}

/** A webhook_journal row claimed by the sweep. */
export interface JournalRow {
  key: string;
  kind: JournalKind;
  appId: string;
}

/** A delivery claimed for sending, as the claim statement returns it. */
export interface ClaimedRow {
  id: string;
  webhook_id: string;
  event_type: string;
  body: string;
  attempts: number;
}

/** Where a hook's deliveries go, with its app's signing secret. */
export interface DeliveryTarget {
  url: string;
  secret: string;
}

/** What one batch of attempts changes, recorded in one statement (settle in store/deliveries.ts). */
export interface Settlement {
  /** Messages to store first (prepublish calls, which have no outbox row). */
  messages: Message[];
  /** Rows to remove from the outbox: delivered, or given up. */
  done: string[];
  /** Rows to try again, each at its time. */
  retry: { id: string; at: Date }[];
  log: NewLogEntry[];
  /** Per hook: `reset` sets its failure run to `n` (a delivery succeeded, `n` failed after it); otherwise `n` failures are added. */
  runs: { webhookId: string; reset: boolean; n: number }[];
}

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
