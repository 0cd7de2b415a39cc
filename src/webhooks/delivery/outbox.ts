import type { Db } from '../../db/client.js';
import type { Logger } from '../../logger.js';
import { TickBatcher } from '../../db/tick-batcher.js';
import * as store from '../store/deliveries.js';
import type { OutboxRow } from '../types.js';
import { HOLD_SECONDS, type DeliveryWorker } from './worker.js';
import { commitMetrics } from '../../metrics/registry.js';

/**
 * Under a steady stream of events, at most one outbox statement per this many ms: its fixed
 * cost (planning, a commit) is shared by more rows.
 */
const SPACING_MS = 20;

/**
 * Stores postpublish deliveries: the rows queued before a flush go in one INSERT (see
 * TickBatcher: the next turn, at most one every SPACING_MS), then they are handed to the
 * worker. Publishing only appends to an array. The rows the worker has room for are stored
 * already claimed by it, so sending them needs no claim statement.
 */
export class OutboxWriter {
  private readonly batcher: TickBatcher<OutboxRow>;

  constructor(db: Db, log: Logger, worker: DeliveryWorker) {
    this.batcher = new TickBatcher(
      async (rows) => {
        const held = Math.min(rows.length, worker.room());
        await store.enqueue(db, rows, held, HOLD_SECONDS);
        worker.stored(rows.slice(0, held));
      },
      log,
      'storing webhook deliveries',
      commitMetrics('webhook_outbox'),
      SPACING_MS,
    );
  }

  add(rows: OutboxRow[]): void {
    this.batcher.add(rows);
  }

  /** Resolves once everything added so far is stored. */
  drain(): Promise<void> {
    return this.batcher.drain();
  }
}
