import type { Logger } from '../logger.js';
import { nextTurn } from '../next-turn.js';
import { failsEveryWrite, isDatabaseUnavailable, isOutOfSpace, UNAVAILABLE_RETRY_MS } from './errors.js';
import type { CommitMetrics } from '../metrics/registry.js';

const after = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
/** While the database is unreachable, a flush is tried again (UNAVAILABLE_RETRY_MS) for at most this long: a failover takes seconds; a database gone for longer loses the items (logged). */
const UNAVAILABLE_HOLD_MS = 60_000;

/**
 * Work that need not answer a request (notifications, webhook outbox rows): items added before
 * a flush starts are written together by one `flush` call; items added meanwhile go in the next
 * one. Flushes start at the next event-loop turn, but at least `spacingMs` after the last one
 * started (so under a steady stream a statement's fixed cost is shared by more items). A flush
 * that failed because the database is unreachable is tried again, items kept, for up to
 * UNAVAILABLE_HOLD_MS, and one that failed because the disk is full for as long as it is (the
 * items follow writes already acknowledged, and new writes are refused meanwhile, so few wait);
 * any other failed flush is retried item by item, and an item that fails alone is logged and dropped.
 */
export class TickBatcher<T> {
  private pending: T[] = [];
  private flushing: Promise<void> | undefined;
  private lastStart = -Infinity;
  /** When flushes started failing for want of a database, if they are. */
  private unavailableSince: number | undefined;
  private stopping = false;

  constructor(
    private readonly flush: (items: T[]) => Promise<void>,
    private readonly log: Logger,
    private readonly what: string,
    private readonly metrics: CommitMetrics,
    private readonly spacingMs = 0,
  ) {}

  add(items: T[]): void {
    this.pending.push(...items);
    if (this.flushing === undefined) this.schedule();
  }

  /**
   * Resolves once everything added so far is flushed, or given up: from this call on (a stop), a
   * flush the database cannot take now is not tried again, so the stop is not held up; its items
   * are logged as lost (webhook deliveries are not: their journal rows stand for them).
   */
  async drain(): Promise<void> {
    this.stopping = true;
    while (this.flushing !== undefined) await this.flushing;
  }

  private schedule(): void {
    const wait = this.lastStart + this.spacingMs - performance.now();
    this.flushing = (wait > 0 ? after(wait) : nextTurn()).then(() => this.run());
  }

  /** One bad item must not cost its neighbours: each is flushed alone, and only those that fail alone are dropped. */
  private async flushOneByOne(items: T[], batchErr: unknown): Promise<void> {
    this.log.warn({ err: batchErr, items: items.length }, `${this.what} failed; retrying one by one`);
    for (const item of items) {
      try {
        await this.flush([item]);
      } catch (err) {
        this.log.error({ err }, `${this.what} failed`);
      }
    }
  }

  /** Whether a flush that failed with `err` keeps its items to try again. */
  private holds(err: unknown): boolean {
    if (this.stopping) return false;
    if (isOutOfSpace(err)) return true;
    if (!isDatabaseUnavailable(err)) return false;
    this.unavailableSince ??= performance.now();
    return performance.now() - this.unavailableSince < UNAVAILABLE_HOLD_MS;
  }

  private async run(): Promise<void> {
    this.lastStart = performance.now();
    const items = this.pending;
    this.pending = [];
    try {
      await this.flush(items);
      this.unavailableSince = undefined;
      this.metrics.observe(items.length, this.lastStart);
    } catch (err) {
      if (this.holds(err)) {
        const full = isOutOfSpace(err);
        this.log[full ? 'debug' : 'warn']({ err, items: items.length }, `${this.what} failed: ${full ? 'the disk is full' : 'database unavailable'}, trying again`);
        this.pending = [...items, ...this.pending];
        await after(UNAVAILABLE_RETRY_MS);
      } else if (items.length > 1 && !failsEveryWrite(err)) await this.flushOneByOne(items, err);
      else this.log.error({ err, items: items.length }, `${this.what} failed`);
    } finally {
      if (this.pending.length > 0) this.schedule();
      else this.flushing = undefined;
    }
  }
}
