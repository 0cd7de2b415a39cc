import type { Db } from '../db/client.js';
import type { Logger } from '../logger.js';
import * as store from './store.js';

/**
 * Stores postpublish deliveries: the rows queued within one tick go in one INSERT, then they
 * are handed to the worker. Publishing only appends to an array.
 */
export class OutboxWriter {
  private pending: store.OutboxRow[] = [];
  private flushing: Promise<void> | undefined;

  constructor(
    private readonly db: Db,
    private readonly log: Logger,
    private readonly written: (rows: store.OutboxRow[]) => void,
  ) {}

  add(rows: store.OutboxRow[]): void {
    this.pending.push(...rows);
    this.flushing ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.flush());
  }

  /** Resolves once everything added so far is stored. */
  async drain(): Promise<void> {
    while (this.flushing !== undefined) await this.flushing;
  }

  private async flush(): Promise<void> {
    const rows = this.pending;
    this.pending = [];
    try {
      await store.enqueue(this.db, rows);
      this.written(rows);
    } catch (err) {
      this.log.error({ err, deliveries: rows.length }, 'storing webhook deliveries failed');
    } finally {
      this.flushing = this.pending.length > 0 ? new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.flush()) : undefined;
    }
  }
}
