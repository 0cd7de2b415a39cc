import { Samples } from '../ws-fanout-stats.js';
import type { RequestStats } from './http.js';
import type { Options } from './options.js';
import type { Acked } from './run.js';
import type { RoomSockets } from './sockets.js';
import type { Check } from './verify.js';

/** The figures of a run: the last line of the output, as JSON. */
export interface Summary {
  scenario: string;
  fans: number;
  nodes: number;
  durationSeconds: number;
  requests: number;
  requestsPerSec: number;
  /** Requests that failed (any non-200, 429s included), sockets that closed early and error frames. */
  errors: number;
  rateLimited: number;
  /** Acknowledged writes missing when read back, plus pushes that never reached a socket. */
  lost: number;
  /** Counts above what was ever tried. */
  overcounted: number;
  p50: number;
  p99: number;
  sockets: number;
  /** Sockets dropped and not back by the end of the run (counted in errors too). */
  socketsClosed: number;
  /** Drops a socket came back from, resuming from its cursor. */
  reconnects: number;
  /** Pushes a socket received twice (a resume that repeated events): a failure like a loss. */
  repeats: number;
  deliveries: number;
  /** Pushes of acknowledged room events that a socket never received. */
  undelivered: number;
  deliveryP50: number;
  deliveryP99: number;
  /** Figures past their --slo bound. */
  sloMissed: string[];
}

/** Pushes each socket should have had (every acknowledged room event) minus those that came. */
function undelivered(acked: Acked, sockets: RoomSockets, socketCount: number): number {
  let missing = 0;
  for (const id of acked.roomEvents.keys()) missing += Math.max(0, socketCount - (sockets.delivered.get(id) ?? 0));
  return missing;
}

function deliveryLatency(acked: Acked, sockets: RoomSockets): Samples {
  const samples = new Samples(sockets.arrivals.length);
  for (const { id, at } of sockets.arrivals) {
    const sent = acked.roomEvents.get(id);
    if (sent !== undefined) samples.add(at - sent);
  }
  return samples;
}

export function summarize(options: Options, stats: RequestStats, acked: Acked, sockets: RoomSockets, checks: Check[]): Summary {
  const http = stats.latency.summary();
  const delivery = deliveryLatency(acked, sockets).summary();
  const missed = undelivered(acked, sockets, options.sockets);
  const summary: Summary = {
    scenario: options.scenario,
    fans: options.fans,
    nodes: options.urls.length,
    durationSeconds: options.durationSeconds,
    requests: stats.requests,
    requestsPerSec: Math.round(stats.requests / options.durationSeconds),
    errors: stats.errors + sockets.closed + sockets.errorFrames,
    rateLimited: stats.rateLimited,
    lost: checks.reduce((sum, c) => sum + c.lost, 0) + missed,
    overcounted: checks.reduce((sum, c) => sum + c.overcounted, 0),
    p50: http.p50,
    p99: http.p99,
    sockets: options.sockets,
    socketsClosed: sockets.closed,
    reconnects: sockets.reconnects,
    repeats: sockets.repeats(options.sockets),
    deliveries: sockets.deliveries,
    undelivered: missed,
    deliveryP50: delivery.p50,
    deliveryP99: delivery.p99,
    sloMissed: [],
  };
  for (const [key, bound] of Object.entries(options.slo)) {
    const value = summary[key as 'p50' | 'p99' | 'deliveryP50' | 'deliveryP99'];
    if (!(value <= bound)) summary.sloMissed.push(`${key} ${value} > ${bound}`);
  }
  return summary;
}

export const failed = (s: Summary) => s.errors > 0 || s.lost > 0 || s.repeats > 0 || s.overcounted > 0 || s.sloMissed.length > 0;

/** The human part of the report: per kind of request, the read-back checks, the pushes. */
export function table(stats: RequestStats, checks: Check[], summary: Summary): string[] {
  const lines = ['', '| request | count | errors | p50 ms | p99 ms |', '|---|---|---|---|---|'];
  for (const [kind, entry] of stats.byKind) {
    const { p50, p99 } = entry.latency.summary();
    lines.push(`| ${kind} | ${entry.requests} | ${entry.errors} | ${p50} | ${p99} |`);
  }
  lines.push(`| all | ${summary.requests} (${summary.requestsPerSec}/s) | ${stats.errors} (${summary.rateLimited} were 429) | ${summary.p50} | ${summary.p99} |`);
  lines.push('', '| read back | node | acknowledged | found | lost | counted twice |', '|---|---|---|---|---|---|');
  for (const c of checks) lines.push(`| ${c.what} | ${c.node + 1} | ${c.acknowledged} | ${c.found} | ${c.lost} | ${c.overcounted} |`);
  lines.push(
    '',
    `WebSocket: ${summary.sockets} sockets on the room (${summary.reconnects} reconnects, ${summary.socketsClosed} closed at the end), ${summary.deliveries} deliveries, ${summary.undelivered} pushes missing, ${summary.repeats} repeated, delivery p50 ${summary.deliveryP50} ms p99 ${summary.deliveryP99} ms`,
  );
  for (const f of stats.failures) lines.push(`error: ${f.kind} answered ${f.status}: ${f.message}`);
  for (const m of summary.sloMissed) lines.push(`SLO missed: ${m}`);
  return lines;
}
