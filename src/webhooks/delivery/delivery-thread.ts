import { Worker } from 'node:worker_threads';
import type { Pooler } from '../../db/client.js';
import { threadBoot } from '../../thread-boot.js';
import type { Logger } from '../../logger.js';
import { reportThreadMetrics, type MetricsSnapshot } from '../../metrics/threads.js';
import type { Deliveries, PipelineSettings } from './pipeline.js';
import type { Owed } from '../types.js';

export interface DeliveryThreadSettings extends PipelineSettings {
  databaseUrl: string;
  databasePooler: Pooler;
  logLevel: string;
}

export type ToDeliveryThread = { owed: Owed } | { close: true };
/** The app of a hook the thread disabled, or the thread's metrics (every THREAD_REPORT_MS). */
export type FromDeliveryThread = { disabled: string } | { metrics: MetricsSnapshot };

const BOOT = threadBoot('delivery-thread-entry', import.meta.url);
const RESTART_DELAY_MS = 1000;
/** Events kept while the thread is being started again; beyond this the newest are left to the journal sweep. */
const HELD_WHILE_DOWN = 50_000;

/**
 * With Postgres, postpublish deliveries are stored and sent from a worker thread with its own
 * connections (a DeliveryPipeline there), at a lower scheduling priority: the thread that serves
 * requests only builds each body and hands the rows over, one message per event-loop turn.
 * Storing and sending (the outbox statement's JSON, HTTP exchanges, the bookkeeping of attempts)
 * then neither takes its CPU first nor fills its heap, whose collections would pause requests.
 * If the thread dies it is started again; what it had stored is sent from the outbox.
 */
export class DeliveryThread implements Deliveries {
  private worker: Worker | undefined;
  /** Settles when the current (or last) thread has exited. */
  private exited: Promise<void> = Promise.resolve();
  private queued: Owed = { keys: [], views: [], rows: [] };
  private closing = false;

  constructor(
    private readonly settings: DeliveryThreadSettings,
    private readonly log: Logger,
    private readonly onDisabled: (appId: string) => void,
  ) {
    this.start();
  }

  add(owed: Owed): void {
    if (this.worker === undefined && this.queued.keys.length + owed.keys.length > HELD_WHILE_DOWN) {
      this.log.warn({ events: owed.keys.length }, 'webhook delivery thread down; the journal sweep will deliver these events');
      return;
    }
    if (this.queued.keys.length === 0) setImmediate(() => this.flush());
    this.queued.keys.push(...owed.keys);
    this.queued.views.push(...owed.views);
    this.queued.rows.push(...owed.rows);
  }

  async close(): Promise<void> {
    this.closing = true;
    this.flush();
    this.worker?.postMessage({ close: true } satisfies ToDeliveryThread);
    await this.exited;
  }

  private flush(): void {
    if (this.worker === undefined || this.queued.keys.length === 0) return;
    this.worker.postMessage({ owed: this.queued } satisfies ToDeliveryThread);
    this.queued = { keys: [], views: [], rows: [] };
  }

  private start(): void {
    const worker = new Worker(BOOT, { eval: true, workerData: this.settings });
    worker.on('message', (message: FromDeliveryThread) => ('metrics' in message ? reportThreadMetrics('webhook-delivery', message.metrics) : this.onDisabled(message.disabled)));
    worker.on('error', (err) => this.log.error({ err }, 'webhook delivery thread failed'));
    this.exited = new Promise((resolve) =>
      worker.once('exit', (code) => {
        this.worker = undefined;
        resolve();
        if (this.closing) return;
        this.log.error({ code }, 'webhook delivery thread stopped; starting it again');
        setTimeout(() => {
          if (!this.closing) this.start();
        }, RESTART_DELAY_MS);
      }),
    );
    this.worker = worker;
    this.flush();
  }
}
