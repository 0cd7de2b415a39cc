import type { Db } from '../../db/client.js';
import type { Logger } from '../../logger.js';
import { LogPruner } from './log-pruner.js';
import { OutboxWriter } from './outbox.js';
import { denyPrivateReceivers } from './sender.js';
import type { Owed } from '../types.js';
import { DeliveryWorker } from './worker.js';

/** Where publishing hands its postpublish deliveries: stored, then sent, off the request path. */
export interface Deliveries {
  add(owed: Owed): void;
  /** Stores what was added, then stops sending. */
  close(): Promise<void>;
}

export interface PipelineSettings {
  /** Failed deliveries in a row after which a hook is disabled. */
  failureLimit: number;
  /** See LogPruner; 0 keeps every delivery. */
  logRetentionSeconds: number;
  /** WEBHOOK_DENY_PRIVATE */
  denyPrivate: boolean;
  /**
   * False while the disk is full: nothing is sent (its outcome could not be recorded) or pruned.
   * The delivery thread has no such signal: its statements fail instead, and it tries again.
   */
  mayWrite?: () => boolean;
}

/** The outbox writer, the delivery worker and the log pruner on one database, in the thread that builds them. */
export class DeliveryPipeline implements Deliveries {
  private readonly worker: DeliveryWorker;
  private readonly outbox: OutboxWriter;
  private readonly pruner: LogPruner;

  constructor(db: Db, log: Logger, settings: PipelineSettings, onDisabled: (appId: string) => void) {
    if (settings.denyPrivate) denyPrivateReceivers();
    const mayWrite = settings.mayWrite ?? (() => true);
    this.worker = new DeliveryWorker(db, settings.failureLimit, log, onDisabled, mayWrite);
    this.outbox = new OutboxWriter(db, log, this.worker);
    this.pruner = new LogPruner(db, log, settings.logRetentionSeconds, mayWrite);
    this.worker.start();
    this.pruner.start();
  }

  add(owed: Owed): void {
    this.outbox.add(owed);
  }

  async close(): Promise<void> {
    await this.pruner.stop();
    await this.outbox.drain();
    await this.worker.stop();
  }
}
