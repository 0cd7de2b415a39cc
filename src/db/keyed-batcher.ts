import type { Logger } from '../logger.js';
import type { CommitMetrics } from '../metrics/registry.js';
import { isDatabaseUnavailable } from './errors.js';

interface Pending<T, R> {
  key: string;
  item: T;
  resolve: (result: R) => void;
  reject: (err: unknown) => void;
}

const MAX_BATCH = 2000;

/**
 * Group commit for writes that land on one row each (a comment's votes, a conversation's
 * reactions): items submitted while a write is in flight wait, then go together, one `write`
 * call per key with all of that key's items (keys in parallel). `write` answers each item in
 * order; every item is answered only after its call returned (committed). When a call fails, its
 * items are written one by one, so only an item that fails alone fails its request (unless the
 * database is out of reach: then every one would fail).
 */
export class KeyedBatcher<T, R> {
  private queue: Pending<T, R>[] = [];
  private running = false;

  constructor(
    private readonly write: (key: string, items: T[]) => Promise<R[]>,
    private readonly log: Logger,
    private readonly what: string,
    private readonly metrics: CommitMetrics,
  ) {}

  submit(key: string, item: T): Promise<R> {
    return new Promise((resolve, reject) => {
      this.queue.push({ key, item, resolve, reject });
      if (!this.running) {
        this.running = true;
        setImmediate(() => void this.drain());
      }
    });
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, MAX_BATCH);
      const byKey = new Map<string, Pending<T, R>[]>();
      for (const p of batch) {
        const list = byKey.get(p.key);
        if (list === undefined) byKey.set(p.key, [p]);
        else list.push(p);
      }
      const started = performance.now();
      await Promise.all([...byKey].map(([key, group]) => this.writeGroup(key, group)));
      this.metrics.observe(batch.length, started);
    }
    this.running = false;
  }

  private async writeGroup(key: string, group: Pending<T, R>[]): Promise<void> {
    try {
      const results = await this.write(
        key,
        group.map((p) => p.item),
      );
      group.forEach((p, i) => p.resolve(results[i] as R));
    } catch (err) {
      if (group.length === 1 || isDatabaseUnavailable(err)) {
        for (const p of group) p.reject(err);
        return;
      }
      this.log.warn({ err, key, items: group.length }, `${this.what} batch failed; writing its items one by one`);
      for (const p of group) await this.write(key, [p.item]).then((results) => p.resolve(results[0] as R), p.reject);
    }
  }
}
