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
}

/** The outbox writer, the delivery worker and the log pruner on one database, in the thread that builds them. */
export class DeliveryPipeline implements Deliveries {
  private readonly worker: DeliveryWorker;
  private readonly outbox: OutboxWriter;
  private readonly pruner: LogPruner;

  constructor(db: Db, log: Logger, settings: PipelineSettings, onDisabled: (appId: string) => void) {
    if (settings.denyPrivate) denyPrivateReceivers();
    this.worker = new DeliveryWorker(db, settings.failureLimit, log, onDisabled);
    this.outbox = new OutboxWriter(db, log, this.worker);
    this.pruner = new LogPruner(db, log, settings.logRetentionSeconds);
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
