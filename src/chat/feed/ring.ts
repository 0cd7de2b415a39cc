import { jsonOnce } from '../../json-once.js';
import type { EventView } from '../views.js';

export interface RingEntry {
  seq: number;
  view: EventView;
  cursor: string;
}

/** The view as JSON, made once and reused by every poller. */
export const entryJson = (entry: RingEntry): string => jsonOnce(entry.view);

/** Rings made so far (each ring's id). */
let made = 0;

/** How long a hole in the sequence may stay open before the ring gives up and reloads. */
const GAP_PATIENCE_MS = 1000;

/**
 * The recent feed of one room, in memory: entries with consecutive seqs ending at `last`.
 * Entries arrive through the bus in any order; one that skips ahead waits in `early` until the
 * hole fills. A hole that stays open (a message lost between nodes) marks the ring stale and
 * readers go to the database until it is reloaded.
 */
export class RoomRing {
  /** Tells this ring from the room's earlier and later ones: what a ring held for a span of seqs stays the same for its lifetime. */
  readonly id = ++made;
  private entries: RingEntry[] = [];
  private readonly early = new Map<number, RingEntry>();
  private gapSince = 0;
  /** Highest seq held with no hole before it; -1 while loading. */
  last = -1;
  /** Every feed event after this seq is held (or was deleted before it was loaded). */
  private floor = 0;

  constructor(private readonly capacity: number) {}

  /** Sets the loaded tail, then applies what arrived meanwhile. */
  loaded(last: number, floor: number, entries: RingEntry[]): void {
    this.entries = entries;
    this.last = last;
    this.floor = floor;
    for (const seq of [...this.early.keys()]) if (seq <= last) this.early.delete(seq);
    this.drain();
  }

  add(entry: RingEntry): void {
    if (this.last >= 0 && entry.seq <= this.last) return;
    this.early.set(entry.seq, entry);
    if (this.last >= 0) this.drain();
  }

  /** True when reads may be served from memory. */
  usable(now: number): boolean {
    return this.last >= 0 && (this.early.size === 0 || now - this.gapSince < GAP_PATIENCE_MS);
  }

  /** Entries after `seq`, or undefined when the ring does not reach back that far. */
  after(seq: number): RingEntry[] | undefined {
    if (seq >= this.last) return [];
    if (seq < this.floor) return undefined;
    let lo = 0;
    let hi = this.entries.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.entries[mid] as RingEntry).seq <= seq) lo = mid + 1;
      else hi = mid;
    }
    return this.entries.slice(lo);
  }

  /** Like the database, the ring no longer holds what a `remove` or `purge` took away. */
  private forgetRemoved(view: EventView): void {
    if (view.eventtype === 'remove' && view.replyto !== null) {
      const id = view.replyto.id;
      this.entries = this.entries.filter((e) => e.view.id !== id);
    } else if (view.eventtype === 'purge' && view.userid !== null) {
      const userId = view.userid;
      this.entries = this.entries.filter((e) => e.view.userid !== userId);
    }
  }

  private drain(): void {
    let next = this.early.get(this.last + 1);
    while (next !== undefined) {
      this.early.delete(next.seq);
      this.forgetRemoved(next.view);
      this.entries.push(next);
      this.last = next.seq;
      next = this.early.get(this.last + 1);
    }
    if (this.entries.length > this.capacity * 2) {
      const dropped = this.entries.length - this.capacity;
      this.floor = (this.entries[dropped - 1] as RingEntry).seq;
      this.entries = this.entries.slice(dropped);
    }
    this.gapSince = this.early.size === 0 ? 0 : this.gapSince || Date.now();
  }
}
