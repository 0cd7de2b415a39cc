import type { TelemetryLimits } from './limits.js';
import { bySignal, Signal, type SignalKind, type SignalView } from './signal.js';

export interface Operation {
  kind: SignalKind;
  key: string;
  userid: string;
  amount: number;
  /** Epoch ms when the receiving node accepted it. */
  at: number;
}

class Context {
  /** Per kind, key → signal: keyed by the signal's own key string, not a second string combining kind and key. */
  readonly signals: Record<SignalKind, Map<string, Signal>> = { presence: new Map(), metric: new Map(), gauge: new Map() };
  lastOperation = 0;
  /** Bumped on every applied operation: a change marker for the snapshot's cursor. */
  version = 0;

  signalCount(): number {
    return this.signals.presence.size + this.signals.metric.size + this.signals.gauge.size;
  }

  *allSignals(): Iterable<Signal> {
    yield* this.signals.presence.values();
    yield* this.signals.metric.values();
    yield* this.signals.gauge.values();
  }
}

const signalId = (kind: SignalKind, key: string) => `${kind}\u0000${key}`;

/** Every live context of every application on this node, evicted once idle. */
export class ContextStore {
  private readonly apps = new Map<string, Map<string, Context>>();

  constructor(
    private readonly windowSeconds: number,
    private readonly limits: TelemetryLimits,
  ) {}

  /** Whether the application may hold this context: it does already, or holds fewer than it may. */
  admits(appId: string, contextid: string): boolean {
    const contexts = this.apps.get(appId);
    return contexts === undefined || contexts.has(contextid) || contexts.size < this.limits.contextsPerApp;
  }

  /**
   * Which of these operations fit the context, in order: one that would add a signal beyond
   * the keys a context may hold does not; one on a signal held, or added earlier in the list, does.
   */
  fitting(appId: string, contextid: string, ops: readonly { kind: SignalKind; key: string }[]): boolean[] {
    const held = this.apps.get(appId)?.get(contextid);
    const heldCount = held?.signalCount() ?? 0;
    const added = new Set<string>();
    return ops.map(({ kind, key }) => {
      const id = signalId(kind, key);
      if (held?.signals[kind].has(key) === true || added.has(id)) return true;
      if (heldCount + added.size >= this.limits.keysPerContext) return false;
      added.add(id);
      return true;
    });
  }

  /**
   * Applies the operation unless it would add a context or signal beyond the limits (one another
   * node accepted while this one's view differed); answers whether it did.
   */
  apply(appId: string, contextid: string, op: Operation, now: number): boolean {
    if (!this.admits(appId, contextid)) return false;
    let contexts = this.apps.get(appId);
    if (contexts === undefined) {
      contexts = new Map();
      this.apps.set(appId, contexts);
    }
    let context = contexts.get(contextid);
    if (context === undefined) {
      context = new Context();
      contexts.set(contextid, context);
    }
    const ofKind = context.signals[op.kind];
    let signal = ofKind.get(op.key);
    if (signal === undefined) {
      if (context.signalCount() >= this.limits.keysPerContext) return false;
      signal = new Signal(op.key, op.kind, this.windowSeconds);
      ofKind.set(op.key, signal);
    }
    signal.apply(op.userid, op.amount, op.at, now);
    context.lastOperation = Math.max(context.lastOperation, now);
    context.version += 1;
    return true;
  }

  /** Signals sorted by key then kind; empty for a context nobody has touched lately. */
  view(appId: string, contextid: string, now: number): { version: number; signals: SignalView[] } {
    const context = this.apps.get(appId)?.get(contextid);
    if (context === undefined) return { version: 0, signals: [] };
    const signals = [...context.allSignals()].map((s) => s.view(now));
    signals.sort(bySignal);
    return { version: context.version, signals };
  }

  /** One signal's figures; undefined when the context does not hold it. */
  signalView(appId: string, contextid: string, kind: SignalKind, key: string, now: number): SignalView | undefined {
    return this.apps.get(appId)?.get(contextid)?.signals[kind].get(key)?.view(now);
  }

  count(): number {
    let n = 0;
    for (const contexts of this.apps.values()) n += contexts.size;
    return n;
  }

  /** Drops contexts with no operation for two windows (their figures are all zero by then). */
  evictIdle(now: number): void {
    const idleSince = now - 2 * this.windowSeconds * 1000;
    for (const [appId, contexts] of this.apps) {
      for (const [contextid, context] of contexts) {
        if (context.lastOperation <= idleSince) contexts.delete(contextid);
        else for (const signal of context.allSignals()) signal.prune(now);
      }
      if (contexts.size === 0) this.apps.delete(appId);
    }
  }
}
