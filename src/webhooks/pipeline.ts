import type { Db } from '../db/client.js';
import type { Logger } from '../logger.js';
import { OutboxWriter } from './outbox.js';
import type { OutboxRow } from './store.js';
import { DeliveryWorker } from './worker.js';

/** Where publishing hands its postpublish deliveries: stored, then sent, off the request path. */
export interface Deliveries {
  add(rows: OutboxRow[]): void;
  /** Stores what was added, then stops sending. */
  close(): Promise<void>;
}

/** The outbox writer and the delivery worker on one database, in the thread that builds it. */
export class DeliveryPipeline implements Deliveries {
  private readonly worker: DeliveryWorker;
  private readonly outbox: OutboxWriter;

  constructor(db: Db, log: Logger, failureLimit: number, onDisabled: (appId: string) => void) {
    this.worker = new DeliveryWorker(db, failureLimit, log, onDisabled);
    this.outbox = new OutboxWriter(db, log, this.worker);
    this.worker.start();
  }

  add(rows: OutboxRow[]): void {
    this.outbox.add(rows);
  }

  async close(): Promise<void> {
    await this.outbox.drain();
    await this.worker.stop();
  }
}
