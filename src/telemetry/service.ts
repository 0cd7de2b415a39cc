import { badRequest } from '../errors.js';
import type { Logger } from '../logger.js';
import type { Shape } from '../realtime/compact/shapes.js';
import type { LiveHub } from '../realtime/hub.js';
import { topicName } from '../realtime/live.js';
import type { PresenceStore } from './presence-store.js';
import type { SignalKind, SignalOp, SignalView } from './signal.js';

/** Live pushes of a context's snapshot happen at most this often. */
const PUSH_INTERVAL_MS = 500;
export const CONTEXT_TOPIC = 'context';

export interface Snapshot {
  kind: 'telemetry.snapshot';
  contextid: string;
  asof: string;
  cursor: string;
  signals: SignalView[];
}

/** telemetry.snapshot in compact frames (docs/realtime.md). */
export const SNAPSHOT_SHAPE: Shape = {
  fields: [
    ['contextid', 'c', 'topic'],
    ['asof', 'a', 'time'],
    ['cursor', 'cu'],
    ['signals', 's'],
  ],
};

/**
 * Presence, metrics and gauges per (application, context, key), held by a PresenceStore; pushes
 * a context's snapshot to this node's subscribers of `context:{contextid}` when it changes.
 */
export class TelemetryService {
  /** Contexts this node has had subscribers of since their last push check: appId/contextid → ids. */
  private readonly watched = new Map<string, { appId: string; contextid: string }>();
  /** The signals last pushed per watched context. */
  private readonly pushed = new Map<string, string>();
  private readonly timer: NodeJS.Timeout;
  private pushing = false;

  constructor(
    private readonly store: PresenceStore,
    private readonly keysPerContext: number,
    private readonly hub: LiveHub,
    private readonly log: Logger,
  ) {
    this.timer = setInterval(() => this.pushChanges(), PUSH_INTERVAL_MS);
    this.timer.unref();
  }

  /** Applies the operations of one user: all or none (400 when one would add a signal beyond the limit). */
  async record(appId: string, contextid: string, userid: string, ops: SignalOp[]): Promise<void> {
    const fits = await this.store.apply(appId, contextid, userid, ops, true);
    if (!fits.every(Boolean)) {
      throw badRequest(`The context already has ${this.keysPerContext} signals.`, { key: `would add a signal beyond ${this.keysPerContext}` });
    }
  }

  /** Applies those of the operations that fit, each judged against the context as the ones before it leave it; answers which did. */
  recordFitting(appId: string, contextid: string, userid: string, ops: readonly SignalOp[]): Promise<boolean[]> {
    return this.store.apply(appId, contextid, userid, ops, false);
  }

  async snapshot(appId: string, contextid: string): Promise<Snapshot> {
    const now = Date.now();
    const { version, signals } = await this.store.view(appId, contextid, now);
    return { kind: 'telemetry.snapshot', contextid, asof: new Date(now).toISOString(), cursor: String(version), signals };
  }

  /** One signal of the context, as of now. */
  async signal(appId: string, contextid: string, kind: SignalKind, key: string): Promise<{ asof: string; signal: SignalView | undefined }> {
    const now = Date.now();
    return { asof: new Date(now).toISOString(), signal: await this.store.signal(appId, contextid, kind, key, now) };
  }

  /** The snapshot a new subscriber gets; from now on the context's changes are pushed to this node's subscribers. */
  subscribed(appId: string, contextid: string): Promise<Snapshot> {
    this.watched.set(`${appId}/${contextid}`, { appId, contextid });
    return this.snapshot(appId, contextid);
  }

  close(): Promise<void> {
    clearInterval(this.timer);
    return this.store.close();
  }

  /** Pushes the snapshot of every watched context whose signals changed; forgets those without subscribers left. */
  private pushChanges(): void {
    if (this.pushing) return;
    this.pushing = true;
    const checks = [...this.watched].map(([id, { appId, contextid }]) => this.pushIfChanged(id, appId, contextid));
    Promise.all(checks)
      .catch((err: unknown) => this.log.warn({ err }, 'telemetry push failed'))
      .finally(() => (this.pushing = false));
  }

  private async pushIfChanged(id: string, appId: string, contextid: string): Promise<void> {
    const topic = topicName(CONTEXT_TOPIC, contextid);
    if (this.hub.subscriberCount(appId, topic) === 0) {
      this.watched.delete(id);
      this.pushed.delete(id);
      return;
    }
    const snapshot = await this.snapshot(appId, contextid);
    // A context that holds nothing (never touched, or forgotten once idle) is not pushed.
    if (snapshot.signals.length === 0) {
      this.pushed.delete(id);
      return;
    }
    const fingerprint = JSON.stringify(snapshot.signals);
    if (this.pushed.get(id) === fingerprint) return;
    this.pushed.set(id, fingerprint);
    this.hub.publishLocal(appId, topic, { type: 'telemetry.snapshot', data: snapshot });
  }
}
