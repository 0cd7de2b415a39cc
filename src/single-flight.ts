import { ChangeClock } from './change-clock.js';

/** How many keys' last change are remembered (see ChangeClock). */
export const CHANGES_REMEMBERED = 10_000;

/**
 * Concurrent loads of the same key share one: the callers that arrive while a load is running
 * get its promise. Used in front of database reads that fill a cache, so a burst of requests for
 * one uncached thing (a busy room after a restart) makes one read, not hundreds.
 *
 * A load may return a row read before a change whose notice arrives while it runs; caching that
 * row would keep it for good. So the cache calls `invalidate(key)` on each change notice, and a
 * load (or any fill, see `stamp`) that started before it does not fill the cache. The callers
 * already waiting still get its value (their requests overlap the change, like a cache hit just
 * before the notice); callers that come after the notice start a new load.
 */
export class SingleFlight<V> {
  private readonly running = new Map<string, Promise<V>>();
  private readonly changes = new ChangeClock(CHANGES_REMEMBERED);

  /** `keep` stores the value in the cache; skipped when the key was invalidated after the load started. */
  run(key: string, load: () => Promise<V>, keep?: (value: V) => void): Promise<V> {
    const running = this.running.get(key);
    if (running !== undefined) return running;
    const since = this.stamp();
    const pending: Promise<V> = load()
      .then((value) => {
        if (this.unchangedSince(key, since)) keep?.(value);
        return value;
      })
      .finally(() => {
        // After an invalidation the key may already run a newer load, which must stay.
        if (this.running.get(key) === pending) this.running.delete(key);
      });
    this.running.set(key, pending);
    return pending;
  }

  /** Callers from now on start a new load of `key` instead of sharing the running one (which may still fill the cache). */
  detach(key: string): void {
    this.running.delete(key);
  }

  /** A change of `key` was announced: loads of it running now must not fill the cache. */
  invalidate(key: string): void {
    this.detach(key);
    this.changes.changed(key);
  }

  /** Every key changed, or may have (notices were lost): no running load fills the cache, later callers start new ones. */
  reset(): void {
    this.running.clear();
    this.changes.changedAll();
  }

  /** For fills that do not go through `run` (one query for many keys, a row returned by a write): take before reading. */
  stamp(): number {
    return this.changes.stamp();
  }

  /** True when no change of `key` was announced since `stamp` was taken: a row read after it may be cached. */
  unchangedSince(key: string, stamp: number): boolean {
    return this.changes.unchangedSince(key, stamp);
  }
}
