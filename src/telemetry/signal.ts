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
 * (one bucket per second of the window) plus one entry per user seen within the window (pruned
 * as users fall out of it). Most signals a client can make cheaply see one user in one second
 * (a batch of new keys), so until a second user or a second second comes, both are held in
 * fields: a Map and a bucket array cost about a kilobyte more per signal.
 *
 * An operation adds an amount: 1 per heartbeat, `by` per increment, `value` per sample.
 */
export class Signal {
  private total = 0;
  /** The only user seen within the window so far (undefined once none is) and when; `users` from the second one on. */
  private soleUser: string | undefined;
  private soleSeen = 0;
  private users: Map<string, number> | undefined;
  /** The only second operations came in so far (-1: none), with their sum and count; `buckets` from the second one on. */
  private onlySecond = -1;
  private onlySum = 0;
  private onlyCount = 0;
  /** Per slot (epoch second % window), three numbers from 3 × slot: the epoch second it holds, the sum, the count. */
  private buckets: Float64Array | undefined;

  constructor(
    readonly key: string,
    readonly kind: SignalKind,
    private readonly windowSeconds: number,
  ) {}

  /** `at` is when the operation happened (ms), as stamped by the node that received it. */
  apply(userid: string, amount: number, at: number, now: number): void {
    const when = Math.min(at, now);
    this.total += amount;
    if (when <= now - this.windowSeconds * 1000) return;
    this.seen(userid, when);
    this.add(Math.floor(when / 1000), amount);
  }

  private seen(userid: string, when: number): void {
    if (this.users !== undefined) {
      if ((this.users.get(userid) ?? 0) < when) this.users.set(userid, when);
    } else if (this.soleUser === undefined || this.soleUser === userid) {
      this.soleUser = userid;
      this.soleSeen = Math.max(this.soleSeen, when);
    } else {
      this.users = new Map([
        [this.soleUser, this.soleSeen],
        [userid, when],
      ]);
      this.soleUser = undefined;
    }
  }

  private add(second: number, amount: number): void {
    if (this.buckets === undefined) {
      // A second that fell out of the window is replaced, so a signal used now and then stays in fields.
      if (this.onlySecond !== second && this.onlySecond > second - this.windowSeconds) {
        this.buckets = new Float64Array(3 * this.windowSeconds);
        for (let i = 0; i < this.buckets.length; i += 3) this.buckets[i] = -1;
        this.addToBucket(this.onlySecond, this.onlySum, this.onlyCount);
        this.addToBucket(second, amount, 1);
        return;
      }
      if (this.onlySecond !== second) {
        this.onlySecond = second;
        this.onlySum = 0;
        this.onlyCount = 0;
      }
      this.onlySum += amount;
      this.onlyCount += 1;
      return;
    }
    this.addToBucket(second, amount, 1);
  }

  private addToBucket(second: number, sum: number, count: number): void {
    const b = this.buckets as Float64Array;
    const i = 3 * (second % this.windowSeconds);
    if (b[i] !== second) {
      b[i] = second;
      b[i + 1] = 0;
      b[i + 2] = 0;
    }
    b[i + 1] = (b[i + 1] as number) + sum;
    b[i + 2] = (b[i + 2] as number) + count;
  }

  /** Forgets users seen before the window; returns how many remain. */
  prune(now: number): number {
    const since = now - this.windowSeconds * 1000;
    if (this.users === undefined) {
      if (this.soleUser !== undefined && this.soleSeen <= since) {
        this.soleUser = undefined;
        this.soleSeen = 0;
      }
      return this.soleUser === undefined ? 0 : 1;
    }
    for (const [userid, seen] of this.users) if (seen <= since) this.users.delete(userid);
    return this.users.size;
  }

  view(now: number): SignalView {
    const active = this.prune(now);
    const oldestSecond = Math.floor(now / 1000) - this.windowSeconds;
    let windowvalue = 0;
    let operations = 0;
    const b = this.buckets;
    if (b === undefined) {
      if (this.onlySecond > oldestSecond) {
        windowvalue = this.onlySum;
        operations = this.onlyCount;
      }
    } else {
      for (let i = 0; i < b.length; i += 3) {
        if ((b[i] as number) <= oldestSecond) continue;
        windowvalue += b[i + 1] as number;
        operations += b[i + 2] as number;
      }
    }
    return figuresOf({ key: this.key, kind: this.kind, active, windowvalue, operations, total: this.total }, this.windowSeconds);
  }
}
