import type { Bus } from '../realtime/bus.js';
import { newId } from '../ids.js';
import { internal, on, send } from '../internal-messages.js';
import type { Operation } from './contexts.js';
import type { SignalKind } from './signal.js';

const KINDS: readonly SignalKind[] = ['presence', 'metric', 'gauge'];

/** Compact wire form: [contextid, kind index, key, userid, amount, at]. */
type WireOp = [string, number, string, string, number, number];
export interface WireBatch {
  n: string;
  ops: WireOp[];
}

export type RemoteApply = (appId: string, contextid: string, op: Operation) => void;

/**
 * Shares every operation with the other nodes, so each applies all of them and answers the same
 * figures. Operations of one event-loop turn travel as one bus message per application; a node
 * skips the batches it sent itself (it applied them already).
 */
export class TelemetrySync {
  private readonly nodeId = newId();
  private outbox = new Map<string, WireOp[]>();
  private flushScheduled = false;
  private readonly stopListening: () => void;

  constructor(
    private readonly bus: Bus,
    apply: RemoteApply,
  ) {
    this.stopListening = on(bus, internal.telemetry, (appId, batch) => {
      if (batch.n === this.nodeId || !Array.isArray(batch.ops)) return;
      for (const [contextid, kind, key, userid, amount, at] of batch.ops) {
        const signalKind = KINDS[kind];
        if (signalKind !== undefined) apply(appId, contextid, { kind: signalKind, key, userid, amount, at });
      }
    });
  }

  share(appId: string, contextid: string, op: Operation): void {
    let ops = this.outbox.get(appId);
    if (ops === undefined) {
      ops = [];
      this.outbox.set(appId, ops);
    }
    ops.push([contextid, KINDS.indexOf(op.kind), op.key, op.userid, op.amount, op.at]);
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      setImmediate(() => this.flush());
    }
  }

  close(): void {
    this.flush();
    this.stopListening();
  }

  private flush(): void {
    this.flushScheduled = false;
    const outbox = this.outbox;
    this.outbox = new Map();
    for (const [appId, ops] of outbox) send(this.bus, appId, internal.telemetry, { n: this.nodeId, ops });
  }
}
