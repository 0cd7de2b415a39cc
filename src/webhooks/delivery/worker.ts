import type { Db } from '../../db/client.js';
import { logFailedTurn } from '../../db/errors.js';
import type { Logger } from '../../logger.js';
import { webhookMetrics } from '../../metrics/registry.js';
import { MAX_ATTEMPTS, retryDelayMs } from './backoff.js';
import { attemptRecords } from './record.js';
import { budget, send } from './sender.js';
import * as store from '../store/deliveries.js';
import { succeeded, type Attempt, type ClaimedRow, type DeliveryTarget, type OutboxRow } from '../types.js';

const BATCH = 500;
/** How long a claim holds a delivery; after that another worker may take it. */
export const HOLD_SECONDS = 15;
const IDLE_POLL_MS = 1000;
/** After a wake-up, let deliveries gather a moment: one claim and one settle serve many events. */
const GATHER_MS = 50;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Stored deliveries kept in memory for the fast path; beyond this the outbox poll finds them. */
const FRESH_LIMIT = 20_000;
/** A held delivery not sent by then is left to the poll once its hold lapses, so no other worker sends it at the same time. */
const FRESH_MAX_AGE_MS = (HOLD_SECONDS - 5) * 1000;

/**
 * Delivers the stored postpublish deliveries. Fast path: rows this node just stored, already
 * claimed for it (see OutboxWriter), are sent from memory. Otherwise (retries, other nodes'
 * rows, rows left by a restart) due rows are claimed from the outbox with SKIP LOCKED, so
 * several nodes share the work. Each batch looks up its hooks' addresses and secrets in one
 * query, is sent concurrently, then one statement logs every attempt, deletes the delivered rows
 * and reschedules the failed ones with backoff.
 */
export class DeliveryWorker {
  private stopped = false;
  private wake: (() => void) | undefined;
  private fresh: { row: OutboxRow; storedAt: number }[] = [];
  private loop: Promise<void> | undefined;

  constructor(
    private readonly db: Db,
    private readonly failureLimit: number,
    private readonly log: Logger,
    /** Told the app of each hook this worker disabled, so every node drops its copy of the app's hooks. */
    private readonly onDisabled: (appId: string) => void,
    /** False while the disk is full: nothing is sent, as its outcome could not be recorded (it would be sent again). */
    private readonly mayWrite: () => boolean,
  ) {}

  start(): void {
    this.loop = this.run();
  }

  /** How many more stored deliveries this worker will hold in memory. */
  room(): number {
    return Math.max(0, FRESH_LIMIT - this.fresh.length);
  }

  /** Rows were stored claimed for this worker (at most `room()`): deliver them now rather than at the next poll. */
  stored(rows: OutboxRow[]): void {
    const storedAt = performance.now();
    for (const row of rows) this.fresh.push({ row, storedAt });
    this.wake?.();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.loop;
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      const writable = this.mayWrite();
      let claimed = 0;
      try {
        if (writable) claimed = await this.deliverBatch();
      } catch (err) {
        logFailedTurn(this.log, err, 'webhook delivery batch failed');
      }
      // A full batch means more are due: go on at once. Otherwise let work gather, or wait for it (or for room on the disk).
      if (claimed < BATCH && !this.stopped) await (claimed === 0 && (this.fresh.length === 0 || !writable) ? this.idle() : sleep(GATHER_MS));
    }
  }

  private idle(): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, IDLE_POLL_MS);
      this.wake = () => {
        this.wake = undefined;
        clearTimeout(timer);
        if (this.stopped) resolve();
        else setTimeout(resolve, GATHER_MS);
      };
    });
  }

  private async deliverBatch(): Promise<number> {
    const claimed = this.fresh.length > 0 ? this.takeFresh() : await store.claimDue(this.db, BATCH, HOLD_SECONDS);
    if (claimed.length === 0) return 0;
    const targets = await store.deliveryTargets(this.db, [...new Set(claimed.map((row) => row.webhook_id))]);
    const deadline = budget();
    const attempts = await Promise.all(claimed.map((row) => this.attempt(row, targets.get(row.webhook_id), deadline)));
    const failed = claimed.filter((_, i) => !succeeded(attempts[i] as Attempt));
    webhookMetrics.attempts.inc(attempts.length);
    webhookMetrics.failures.inc(failed.length);
    const givenUp = failed.filter((row) => row.attempts >= MAX_ATTEMPTS).map((row) => row.id);
    const disabled = await store.settle(
      this.db,
      {
        messages: [],
        done: [...attempts.filter((a) => succeeded(a)).map((a) => a.messageId), ...givenUp],
        retry: failed.filter((row) => row.attempts < MAX_ATTEMPTS).map((row) => ({ id: row.id, at: new Date(Date.now() + retryDelayMs(row.attempts)) })),
        ...attemptRecords(attempts),
      },
      this.failureLimit,
    );
    if (givenUp.length > 0) this.log.warn({ deliveries: givenUp }, `webhook deliveries given up after ${MAX_ATTEMPTS} attempts`);
    for (const hook of disabled) {
      this.log.warn({ webhookid: hook.id, appid: hook.app_id }, 'webhook disabled after consecutive failures');
      this.onDisabled(hook.app_id);
    }
    return claimed.length;
  }

  private takeFresh(): ClaimedRow[] {
    const oldest = performance.now() - FRESH_MAX_AGE_MS;
    return this.fresh
      .splice(0, BATCH)
      .filter((f) => f.storedAt >= oldest)
      .map(({ row: r }) => ({ id: r.id, webhook_id: r.webhookId, event_type: r.eventType, body: r.body, attempts: 1 }));
  }

  private attempt(row: ClaimedRow, target: DeliveryTarget | undefined, deadline: AbortSignal): Promise<Attempt> {
    const delivery = { webhookId: row.webhook_id, messageId: row.id, eventType: row.event_type, attempt: row.attempts };
    if (target === undefined) return Promise.resolve({ ...delivery, statusCode: 0, elapsedMs: 0, error: 'the webhook no longer exists' });
    return send(target.secret, { ...delivery, body: row.body, url: target.url }, deadline);
  }
}
