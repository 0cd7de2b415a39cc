import type { Db } from '../db/client.js';
import type { Logger } from '../logger.js';
import { TickBatcher } from '../db/tick-batcher.js';
import * as store from './store.js';

/**
 * Stores postpublish deliveries: the rows queued within one tick go in one INSERT, then they
 * are handed to the worker. Publishing only appends to an array.
 */
export class OutboxWriter {
  private readonly batcher: TickBatcher<store.OutboxRow>;

  constructor(db: Db, log: Logger, written: (rows: store.OutboxRow[]) => void) {
    this.batcher = new TickBatcher(
      async (rows) => {
        await store.enqueue(db, rows);
        written(rows);
      },
      log,
      'storing webhook deliveries',
    );
  }

  add(rows: store.OutboxRow[]): void {
    this.batcher.add(rows);
  }

  /** Resolves once everything added so far is stored. */
  drain(): Promise<void> {
    return this.batcher.drain();
  }
}
