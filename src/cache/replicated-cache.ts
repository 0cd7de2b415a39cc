import { on, send, type InternalMessage } from '../internal-messages.js';
import type { Bus } from '../realtime/bus.js';
import { SingleFlight } from '../single-flight.js';

export interface ReplicatedCacheOptions<V> {
  /** The internal message that carries this cache's invalidations; its payload names what changed. */
  invalidation: InternalMessage<string>;
  /** Entries held; storing one more drops the oldest stored (0: none). */
  limit: number;
  /**
   * What an invalidation names, when not the key: a token is looked up by its secret but revoked
   * by its id. Such an invalidation scans the entries, so it suits rare changes only.
   */
  idOf?: (value: V) => string;
}

/**
 * A per-node memory of values read from the database, kept exact across nodes: a change is
 * announced with `invalidate` (or `changed`) and every node drops the entry; the request that made
 * the change is answered once every node has (Bus.settledAcrossNodes). A load that started
 * before an invalidation this node heard of does not store its result. While the bus is down,
 * other nodes' invalidations cannot arrive: nothing new is stored then, and when the link comes
 * back everything is dropped (invalidations sent meanwhile may be lost).
 *
 * Hot paths call `peek` (a Map lookup) and `load` only on a miss. Absent values (undefined) are
 * never stored.
 */
export class ReplicatedCache<V> {
  private readonly entries = new Map<string, V>();
  private readonly loads = new SingleFlight<V | undefined>();

  constructor(
    private readonly bus: Bus,
    private readonly options: ReplicatedCacheOptions<V>,
  ) {
    on(bus, options.invalidation, (_appId, id) => this.drop(id));
    bus.onReconnect(() => this.dropAll());
  }

  peek(key: string): V | undefined {
    return this.entries.get(key);
  }

  /** Reads `key` with `read` (callers arriving meanwhile share the read) and stores the value unless invalidated meanwhile. */
  load(key: string, read: () => Promise<V | undefined>): Promise<V | undefined> {
    return this.loads.run(key, read, (value) => {
      if (value !== undefined) this.store(key, value);
    });
  }

  /** For fills that do not go through `load` (one query for many keys): take before reading. */
  stamp(): number {
    return this.loads.stamp();
  }

  /** Stores a value read after `stamp` was taken, unless its key was invalidated since. */
  fill(key: string, value: V, stamp: number): void {
    if (this.loads.unchangedSince(key, stamp)) this.store(key, value);
  }

  /**
   * True when no key of `keys` changed since `stamp` as far as this node can know: never while the
   * bus is down, when other nodes' changes cannot arrive.
   */
  unchangedSince(keys: Iterable<string>, stamp: number): boolean {
    if (!this.bus.isConnected()) return false;
    if (this.loads.stamp() === stamp) return true;
    for (const key of keys) if (!this.loads.unchangedSince(key, stamp)) return false;
    return true;
  }

  /** Every node drops what `id` names (this one before returning). */
  invalidate(appId: string, id: string): void {
    send(this.bus, appId, this.options.invalidation, id);
  }

  /**
   * After a write that returned the new value (`stamp` taken before the write): every node drops
   * the key, and this one keeps `value` unless a change heard during the write may be newer.
   */
  changed(appId: string, key: string, value: V, stamp: number): void {
    // Asked before sending: our own invalidation marks the key changed too.
    const current = this.loads.unchangedSince(key, stamp);
    this.invalidate(appId, key);
    if (current) this.store(key, value);
  }

  private drop(id: string): void {
    const idOf = this.options.idOf;
    if (idOf === undefined) {
      this.entries.delete(id);
      this.loads.invalidate(id);
      return;
    }
    for (const [key, value] of this.entries) if (idOf(value) === id) this.entries.delete(key);
    // Running loads are keyed by what they look up, not by id: none of them may store.
    this.loads.reset();
  }

  private dropAll(): void {
    this.entries.clear();
    this.loads.reset();
  }

  private store(key: string, value: V): void {
    if (!this.bus.isConnected() || this.options.limit === 0) return;
    if (this.entries.size >= this.options.limit && !this.entries.has(key)) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(key, value);
  }
}
