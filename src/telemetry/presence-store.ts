import type { SignalKind, SignalOp, SignalView } from './signal.js';

export interface ContextView {
  /** Grows with every operation applied to the context: the snapshot's cursor. */
  version: number;
  /** Sorted by key, then kind; empty for a context nobody has touched lately. */
  signals: SignalView[];
}

/**
 * Where presence, metrics and gauges live, per (application, context, signal), over the sliding
 * window (PRESENCE_WINDOW_SECONDS). A context without operations for two windows is forgotten.
 * PRESENCE_STORE picks the implementation: memory (each node holds every context and applies
 * every operation, its own and the others' through the bus) or redis (one copy every node reads).
 */
export interface PresenceStore {
  /**
   * Applies one user's operations that fit the context, in order: one that would add a signal
   * beyond the keys a context may hold (TelemetryLimits) does not fit, one on a signal held or
   * added earlier in the list does. With allOrNone, nothing is applied unless all fit. Answers
   * which fitted. Throws RateLimited (tooManyContexts) for a new context beyond the application's.
   */
  apply(appId: string, contextid: string, userid: string, ops: readonly SignalOp[], allOrNone: boolean): Promise<boolean[]>;
  /** The context's signals as of `now` (epoch ms). */
  view(appId: string, contextid: string, now: number): Promise<ContextView>;
  /** One signal of the context as of `now`; undefined when the context does not hold it. */
  signal(appId: string, contextid: string, kind: SignalKind, key: string, now: number): Promise<SignalView | undefined>;
  /** Contexts held (for the engage_telemetry_contexts gauge). */
  contextCount(): number;
  close(): Promise<void>;
}
