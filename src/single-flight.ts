/**
 * Concurrent loads of the same key share one: the callers that arrive while a load is running
 * get its promise. Used in front of database reads that fill a cache, so a burst of requests for
 * one uncached thing (a busy room after a restart) makes one read, not hundreds.
 */
export class SingleFlight<V> {
  private readonly running = new Map<string, Promise<V>>();

  run(key: string, load: () => Promise<V>): Promise<V> {
    let pending = this.running.get(key);
    if (pending === undefined) {
      pending = load().finally(() => this.running.delete(key));
      this.running.set(key, pending);
    }
    return pending;
  }
}
