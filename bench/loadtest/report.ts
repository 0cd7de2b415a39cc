import { Samples } from '../ws-fanout-stats.js';
import { pollFaults, type Poller } from './faults.js';
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
  /** Requests that failed (any non-200, 429s included, and connections refused), sockets that closed early and error frames. */
  errors: number;
  rateLimited: number;
  /** Requests that got no answer (connection refused or reset): errors, and not in the latency percentiles. */
  refused: number;
  /** Acknowledged writes missing when read back (pushes that never came are `undelivered`). */
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
  /** Pushes a socket received more than once (a resume that repeated events), summed over the sockets: a failure like a loss. */
  repeats: number;
  /** Sockets that received some event more than once. */
  socketsRepeating: number;
  deliveries: number;
  /** Pushes of acknowledged room events that a socket never received, summed over the sockets. */
  undelivered: number;
  /** Sockets that missed some acknowledged room event. */
  socketsMissing: number;
  deliveryP50: number;
  deliveryP99: number;
  /** Acknowledged posts missing from the `updates` pages a fan polled after them. */
  pollMisses: number;
  /** Events a polling fan got on more than one page. */
  pollRepeats: number;
  /** Figures past their --slo bound. */
  sloMissed: string[];
}

function deliveryLatency(acked: Acked, sockets: RoomSockets): Samples {
  const samples = new Samples(sockets.arrivals.length);
  for (const { id, at } of sockets.arrivals) {
    const sent = acked.roomEvents.get(id);
    if (sent !== undefined) samples.add(at - sent);
  }
  return samples;
}

export function summarize(options: Options, stats: RequestStats, acked: Acked, sockets: RoomSockets, checks: Check[], pollers: Poller[]): Summary {
  const http = stats.latency.summary();
  const delivery = deliveryLatency(acked, sockets).summary();
  const faults = sockets.faults([...acked.roomEvents.keys()]);
  const polled = pollFaults(acked.posts, pollers);
  const summary: Summary = {
    scenario: options.scenario,
    fans: options.fans,
    nodes: options.urls.length,
    durationSeconds: options.durationSeconds,
    requests: stats.requests,
    requestsPerSec: Math.round(stats.requests / options.durationSeconds),
    errors: stats.errors + sockets.closed + sockets.errorFrames,
    rateLimited: stats.rateLimited,
    refused: stats.refused,
    lost: checks.reduce((sum, c) => sum + c.lost, 0),
    overcounted: checks.reduce((sum, c) => sum + c.overcounted, 0),
    p50: http.p50,
    p99: http.p99,
    sockets: options.sockets,
    socketsClosed: sockets.closed,
    reconnects: sockets.reconnects,
    repeats: faults.repeats,
    socketsRepeating: faults.socketsRepeating,
    deliveries: sockets.deliveries,
    undelivered: faults.misses,
    socketsMissing: faults.socketsMissing,
    deliveryP50: delivery.p50,
    deliveryP99: delivery.p99,
    pollMisses: polled.misses,
    pollRepeats: polled.repeats,
    sloMissed: [],
  };
  for (const [key, bound] of Object.entries(options.slo)) {
    const value = summary[key as 'p50' | 'p99' | 'deliveryP50' | 'deliveryP99'];
    if (!(value <= bound)) summary.sloMissed.push(`${key} ${value} > ${bound}`);
  }
  return summary;
}

export const failed = (s: Summary) => s.errors > 0 || s.lost > 0 || s.undelivered > 0 || s.repeats > 0 || s.overcounted > 0 || s.pollMisses > 0 || s.pollRepeats > 0 || s.sloMissed.length > 0;

/** The human part of the report: per kind of request, the read-back checks, the pushes. */
export function table(stats: RequestStats, checks: Check[], summary: Summary, pollers: number): string[] {
  const lines = ['', '| request | count | errors | p50 ms | p99 ms |', '|---|---|---|---|---|'];
  for (const [kind, entry] of stats.byKind) {
    const { p50, p99 } = entry.latency.summary();
    lines.push(`| ${kind} | ${entry.requests} | ${entry.errors} | ${p50} | ${p99} |`);
  }
  lines.push(`| all | ${summary.requests} (${summary.requestsPerSec}/s) | ${stats.errors} (${summary.rateLimited} were 429, ${summary.refused} refused) | ${summary.p50} | ${summary.p99} |`);
  lines.push('', '| read back | node | acknowledged | found | lost | counted twice |', '|---|---|---|---|---|---|');
  for (const c of checks) lines.push(`| ${c.what} | ${c.node + 1} | ${c.acknowledged} | ${c.found} | ${c.lost} | ${c.overcounted} |`);
  lines.push(
    '',
    `WebSocket: ${summary.sockets} sockets on the room (${summary.reconnects} reconnects, ${summary.socketsClosed} closed at the end), ${summary.deliveries} deliveries, ${summary.undelivered} pushes missing (on ${summary.socketsMissing} sockets), ${summary.repeats} repeated (on ${summary.socketsRepeating} sockets), delivery p50 ${summary.deliveryP50} ms p99 ${summary.deliveryP99} ms`,
  );
  if (pollers > 0) lines.push(`Polling: ${pollers} fans, ${summary.pollMisses} acknowledged posts missing from their pages, ${summary.pollRepeats} events on two pages`);
  for (const f of stats.failures) lines.push(`error: ${f.kind} answered ${f.status}: ${f.message}`);
  for (const m of summary.sloMissed) lines.push(`SLO missed: ${m}`);
  return lines;
}
