import type { Db } from '../../db/client.js';
import type { Logger } from '../../logger.js';
import { TickBatcher } from '../../db/tick-batcher.js';
import * as store from '../store/deliveries.js';
import type { Owed } from '../types.js';
import { HOLD_SECONDS, type DeliveryWorker } from './worker.js';
import { commitMetrics } from '../../metrics/registry.js';

/**
 * Under a steady stream of events, at most one outbox statement per this many ms: its fixed
 * cost (planning, a commit) is shared by more rows.
 */
const SPACING_MS = 20;

/**
 * Stores postpublish deliveries: the events queued before a flush are settled in one statement
 * (see TickBatcher: the next turn, at most one every SPACING_MS), then their rows are handed to
 * the worker. Publishing only appends to an array. Until the flush the events' journal rows
 * stand for their deliveries, so a crash or a failed flush loses none (see JournalSweep). The
 * rows the worker has room for are stored already claimed by it, so sending them needs no
 * claim statement.
 */
export class OutboxWriter {
  private readonly batcher: TickBatcher<Owed>;

  constructor(db: Db, log: Logger, worker: DeliveryWorker) {
    this.batcher = new TickBatcher(
      async (batch) => {
        const owed = { keys: batch.flatMap((o) => o.keys), views: batch.flatMap((o) => o.views), rows: batch.flatMap((o) => o.rows) };
        const held = Math.min(owed.rows.length, worker.room());
        const stored = await store.enqueue(db, owed, held, HOLD_SECONDS);
        worker.stored(owed.rows.slice(0, held).filter((row) => stored.has(row.id)));
      },
      log,
      'storing webhook deliveries',
      commitMetrics('webhook_outbox'),
      SPACING_MS,
    );
  }

  add(owed: Owed): void {
    this.batcher.add([owed]);
  }

  /** Resolves once everything added so far is stored. */
  drain(): Promise<void> {
    return this.batcher.drain();
  }
}
