import type { Freshness } from './shared-answers.js';

/**
 * Versions of what this node's writes changed (a poll's standings, ...), counted in memory, for
 * shared answers (SharedAnswers) reused without asking the database. They are exact only where
 * this node is the only writer (one node on the memory bus: every change is made here, and counted
 * before its request is answered); on a cluster a change made on another node is not counted here,
 * so there an answer is shared only with the requests that began before its read started.
 * Keeps at most `remembered` keys; past that it starts over with every version changed (the worst
 * case is one more read per key, never a stale answer).
 */
export class LocalVersions {
  private readonly counts = new Map<string, number>();
  /** Changes with every start-over, so that no version string made before one is made again. */
  private generation = 0;

  constructor(
    /** This node is the only writer (the memory bus). */
    private readonly exact: boolean,
    private readonly remembered: number,
  ) {}

  /** Call after a change to `key` is committed, before its request is answered. */
  changed(key: string): void {
    if (!this.counts.has(key) && this.counts.size >= this.remembered) {
      this.counts.clear();
      this.generation += 1;
    }
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
  }

  /** What a read of `key` for a request that began at `began` (performance.now()) must ask of a shared answer. */
  freshness(key: string, began: number): Freshness {
    if (!this.exact) return { version: '', since: began };
    return { version: `${this.generation}/${this.counts.get(key) ?? 0}` };
  }
}
