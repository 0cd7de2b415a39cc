/**
 * Tells whether a key changed since a moment (a stamp), so a cache can refuse a value read
 * before a change it heard of while the read ran. Keeps at most `remembered` keys' last change;
 * past that it starts over, and stamps taken before count as overtaken for every key (the worst
 * case is a skipped cache fill, never a stale one).
 */
export class ChangeClock {
  /** Counts changes; a stamp is its value when taken. */
  private epoch = 0;
  private readonly changedAt = new Map<string, number>();
  /** Stamps before this count as overtaken for every key. */
  private floor = 0;

  constructor(private readonly remembered: number) {}

  /** Take before reading what may be cached. */
  stamp(): number {
    return this.epoch;
  }

  changed(key: string): void {
    if (this.changedAt.size >= this.remembered) {
      this.changedAt.clear();
      this.floor = this.epoch;
    }
    this.changedAt.set(key, ++this.epoch);
  }

  /** Every key changed (or may have). */
  changedAll(): void {
    this.changedAt.clear();
    this.floor = ++this.epoch;
  }

  /**
   * A version of `key` that moves with each change to it (and with a start-over): an answer made
   * at one version holds while the version is the same.
   */
  versionOf(key: string): number {
    return Math.max(this.changedAt.get(key) ?? 0, this.floor);
  }

  /** True when `key` has not changed since `stamp` was taken: what was read after it may be cached. */
  unchangedSince(key: string, stamp: number): boolean {
    return stamp >= this.floor && (this.changedAt.get(key) ?? 0) <= stamp;
  }
}
