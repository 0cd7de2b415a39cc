export type SignalKind = 'presence' | 'metric' | 'gauge';

/** One operation on a signal: a presence mark, a metric increment or a gauge sample. */
export interface SignalOp {
  kind: SignalKind;
  key: string;
  amount: number;
}

export interface SignalView {
  key: string;
  kind: SignalKind;
  active: number;
  windowvalue: number;
  total: number;
  average: number;
  intensity: number;
}

const round = (n: number) => Math.round(n * 1e6) / 1e6;

/** What a signal's figures are made of, over the window ending now. */
export interface SignalTally {
  key: string;
  kind: SignalKind;
  /** Distinct users seen within the window. */
  active: number;
  /** Sum and number of the operations within the window. */
  windowvalue: number;
  operations: number;
  total: number;
}

export function figuresOf({ key, kind, active, windowvalue, operations, total }: SignalTally, windowSeconds: number): SignalView {
  const per = kind === 'gauge' ? operations : active;
  return {
    key,
    kind,
    active,
    windowvalue: round(windowvalue),
    total: round(total),
    average: per === 0 ? 0 : round(windowvalue / per),
    intensity: round(windowvalue / windowSeconds),
  };
}

/** A context's signals in the order snapshots list them: by key, then kind. */
export const bySignal = (a: SignalView, b: SignalView) => (a.key === b.key ? a.kind.localeCompare(b.kind) : a.key < b.key ? -1 : 1);

/**
 * One signal of a context over a sliding window of `windowSeconds`. Memory is fixed per signal
 * (one bucket per second of the window) plus one entry per user seen within the window: the map
 * userid → last-seen ms is pruned as users fall out of it.
 *
 * An operation adds an amount: 1 per heartbeat, `by` per increment, `value` per sample.
 */
export class Signal {
  private readonly users = new Map<string, number>();
  private readonly sums: Float64Array;
  private readonly counts: Uint32Array;
  /** The epoch second each bucket currently holds. */
  private readonly seconds: Float64Array;
  private total = 0;

  constructor(
    readonly key: string,
    readonly kind: SignalKind,
    private readonly windowSeconds: number,
  ) {
    this.sums = new Float64Array(windowSeconds);
    this.counts = new Uint32Array(windowSeconds);
    this.seconds = new Float64Array(windowSeconds).fill(-1);
  }

  /** `at` is when the operation happened (ms), as stamped by the node that received it. */
  apply(userid: string, amount: number, at: number, now: number): void {
    const when = Math.min(at, now);
    this.total += amount;
    if (when <= now - this.windowSeconds * 1000) return;
    if ((this.users.get(userid) ?? 0) < when) this.users.set(userid, when);
    const second = Math.floor(when / 1000);
    const slot = second % this.windowSeconds;
    if (this.seconds[slot] !== second) {
      this.seconds[slot] = second;
      this.sums[slot] = 0;
      this.counts[slot] = 0;
    }
    this.sums[slot] = (this.sums[slot] ?? 0) + amount;
    this.counts[slot] = (this.counts[slot] ?? 0) + 1;
  }

  /** Forgets users seen before the window; returns how many remain. */
  prune(now: number): number {
    const since = now - this.windowSeconds * 1000;
    for (const [userid, seen] of this.users) if (seen <= since) this.users.delete(userid);
    return this.users.size;
  }

  view(now: number): SignalView {
    const active = this.prune(now);
    const oldestSecond = Math.floor(now / 1000) - this.windowSeconds;
    let windowvalue = 0;
    let operations = 0;
    for (let slot = 0; slot < this.windowSeconds; slot++) {
      if ((this.seconds[slot] ?? -1) <= oldestSecond) continue;
      windowvalue += this.sums[slot] ?? 0;
      operations += this.counts[slot] ?? 0;
    }
    return figuresOf({ key: this.key, kind: this.kind, active, windowvalue, operations, total: this.total }, this.windowSeconds);
  }
}
