import type { Bus } from '../realtime/bus.js';
import { ContextStore, type Operation } from './contexts.js';
import type { ContextView, PresenceStore } from './presence-store.js';
import { tooManyContexts, type TelemetryLimits } from './limits.js';
import type { SignalKind, SignalOp, SignalView } from './signal.js';
import { TelemetrySync } from './sync.js';

const EVICT_INTERVAL_MS = 5_000;

/**
 * Every context in this node's memory. Every node applies every operation: its own at once, the
 * others' through the bus (TelemetrySync), so all answer the same figures; a node started later
 * knows only the operations since it started.
 */
export class MemoryPresenceStore implements PresenceStore {
  private readonly contexts: ContextStore;
  private readonly sync: TelemetrySync;
  private readonly evictTimer: NodeJS.Timeout;

  constructor(
    bus: Bus,
    private readonly windowSeconds: number,
    private readonly limits: TelemetryLimits,
  ) {
    this.contexts = new ContextStore(windowSeconds, limits);
    this.sync = new TelemetrySync(bus, (appId, contextid, op) => this.contexts.apply(appId, contextid, op, Date.now()));
    this.evictTimer = setInterval(() => this.contexts.evictIdle(Date.now()), EVICT_INTERVAL_MS);
    this.evictTimer.unref();
  }

  async apply(appId: string, contextid: string, userid: string, ops: readonly SignalOp[], allOrNone: boolean): Promise<boolean[]> {
    if (!this.contexts.admits(appId, contextid)) throw tooManyContexts(this.limits.contextsPerApp, this.windowSeconds);
    const fits = this.contexts.fitting(appId, contextid, ops);
    if (allOrNone && !fits.every(Boolean)) return fits;
    const now = Date.now();
    ops.forEach(({ kind, key, amount }, i) => {
      if (fits[i] !== true) return;
      const op: Operation = { kind, key, userid, amount, at: now };
      this.contexts.apply(appId, contextid, op, now);
      this.sync.share(appId, contextid, op);
    });
    return fits;
  }

  async view(appId: string, contextid: string, now: number): Promise<ContextView> {
    return this.contexts.view(appId, contextid, now);
  }

  async signal(appId: string, contextid: string, kind: SignalKind, key: string, now: number): Promise<SignalView | undefined> {
    return this.contexts.signalView(appId, contextid, kind, key, now);
  }

  contextCount(): number {
    return this.contexts.count();
  }

  async close(): Promise<void> {
    clearInterval(this.evictTimer);
    this.sync.close();
  }
}
