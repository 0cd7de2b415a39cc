import type { Core } from '../core.js';
import { badRequest } from '../errors.js';
import type { LiveHub } from '../realtime/hub.js';
import { topicName } from '../realtime/live.js';
import { ContextStore, MAX_SIGNALS_PER_CONTEXT, type Operation } from './contexts.js';
import type { SignalKind, SignalView } from './signal.js';
import { TelemetrySync } from './sync.js';

/** Live pushes of a context's snapshot happen at most this often. */
const PUSH_INTERVAL_MS = 500;
const EVICT_INTERVAL_MS = 5_000;

export interface SignalOp {
  kind: SignalKind;
  key: string;
  amount: number;
}

export interface Snapshot {
  kind: 'telemetry.snapshot';
  contextid: string;
  asof: string;
  cursor: string;
  signals: SignalView[];
}

/**
 * Presence, metrics and gauges per (application, context, key) in memory. Every node applies
 * every operation (its own at once, the others' through the bus), and pushes a context's
 * snapshot to its own subscribers of `context:{contextid}` when it changes.
 */
export class TelemetryService {
  private readonly store: ContextStore;
  private readonly sync: TelemetrySync;
  private readonly pushed = new Map<string, string>();
  private readonly timers: NodeJS.Timeout[];

  constructor(
    core: Core,
    private readonly hub: LiveHub,
  ) {
    this.store = new ContextStore(core.config.presenceWindowSeconds);
    this.sync = new TelemetrySync(core.bus, (appId, contextid, op) => this.store.apply(appId, contextid, op, Date.now()));
    this.timers = [setInterval(() => this.pushChanges(), PUSH_INTERVAL_MS), setInterval(() => this.store.evictIdle(Date.now()), EVICT_INTERVAL_MS)];
    for (const timer of this.timers) timer.unref();
  }

  /** Applies the operations of one user (all or none: 400 when one would add a signal beyond the limit) and shares them with the cluster. */
  record(appId: string, contextid: string, userid: string, ops: SignalOp[]): void {
    if (!this.fitting(appId, contextid, ops).every(Boolean)) {
      throw badRequest(`The context already has ${MAX_SIGNALS_PER_CONTEXT} signals.`, { key: `would add a signal beyond ${MAX_SIGNALS_PER_CONTEXT}` });
    }
    const now = Date.now();
    for (const { kind, key, amount } of ops) {
      const op: Operation = { kind, key, userid, amount, at: now };
      this.store.apply(appId, contextid, op, now);
      this.sync.share(appId, contextid, op);
    }
  }

  snapshot(appId: string, contextid: string): Snapshot {
    const now = Date.now();
    const { version, signals } = this.store.view(appId, contextid, now);
    return { kind: 'telemetry.snapshot', contextid, asof: new Date(now).toISOString(), cursor: String(version), signals };
  }

  /** Which operations fit the context, in order (see ContextStore.fitting). */
  fitting(appId: string, contextid: string, ops: readonly SignalOp[]): boolean[] {
    return this.store.fitting(appId, contextid, ops);
  }

  /** One signal of the context, as of now. */
  signal(appId: string, contextid: string, kind: SignalKind, key: string): { asof: string; signal: SignalView | undefined } {
    const now = Date.now();
    return { asof: new Date(now).toISOString(), signal: this.store.signalView(appId, contextid, kind, key, now) };
  }

  /** Contexts held in memory on this node. */
  contextCount(): number {
    return this.store.count();
  }

  close(): void {
    for (const timer of this.timers) clearInterval(timer);
    this.sync.close();
  }

  private pushChanges(): void {
    const seen = new Set<string>();
    for (const [appId, contextid] of this.store.contexts()) {
      const topic = topicName('context', contextid);
      if (this.hub.subscriberCount(appId, topic) === 0) continue;
      const id = `${appId}/${contextid}`;
      seen.add(id);
      const snapshot = this.snapshot(appId, contextid);
      const fingerprint = JSON.stringify(snapshot.signals);
      if (this.pushed.get(id) === fingerprint) continue;
      this.pushed.set(id, fingerprint);
      this.hub.publishLocal(appId, topic, { type: 'telemetry.snapshot', data: snapshot });
    }
    for (const id of this.pushed.keys()) if (!seen.has(id)) this.pushed.delete(id);
  }
}
