import type { Logger } from '../logger.js';
import type { CommitMetrics } from '../metrics/registry.js';
import { failsEveryWrite } from './errors.js';
import { gatherWaiting } from './gather.js';

interface Pending<I, O> {
  item: I;
  resolve: (out: O) => void;
  reject: (err: unknown) => void;
}

/**
 * Group commit for writes a request waits on: items submitted while a batch is being written
 * wait and go together in the next one, one `write` call (a statement or a short transaction)
 * whose results answer each item in order, only after it committed (gathered as gatherWaiting says).
 * A failed batch is written again item by item, so only an item that fails on its own fails its
 * request (unless no write can succeed now, see failsEveryWrite: then every one would).
 */
export class GroupCommit<I, O> {
  private readonly queue: Pending<I, O>[] = [];
  private running = false;
  private lastBatch = 0;

  constructor(
    private readonly write: (items: I[]) => Promise<O[]>,
    private readonly log: Logger,
    private readonly what: string,
    private readonly metrics: CommitMetrics,
    private readonly maxBatch = 1000,
  ) {}

  submit(item: I): Promise<O> {
    return new Promise((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.launch();
    });
  }

  private launch(): void {
    if (this.running || this.queue.length === 0) return;
    this.running = true;
    setImmediate(() => void this.run());
  }

  private async run(): Promise<void> {
    await gatherWaiting(this.queue, this.lastBatch);
    const batch = this.queue.splice(0, this.maxBatch);
    this.lastBatch = batch.length;
    const started = performance.now();
    try {
      const out = await this.write(batch.map((p) => p.item));
      this.metrics.observe(batch.length, started);
      batch.forEach((p, i) => p.resolve(out[i] as O));
    } catch (err) {
      if (batch.length === 1 || failsEveryWrite(err)) for (const p of batch) p.reject(err);
      else await this.oneByOne(batch, err);
    } finally {
      this.running = false;
      this.launch();
    }
  }

  private async oneByOne(batch: Pending<I, O>[], batchErr: unknown): Promise<void> {
    this.log.warn({ err: batchErr, items: batch.length }, `${this.what} failed; writing its items one by one`);
    for (const p of batch) {
      try {
        p.resolve((await this.write([p.item]))[0] as O);
      } catch (err) {
        p.reject(err);
      }
    }
  }
}
