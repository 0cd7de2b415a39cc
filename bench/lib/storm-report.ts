import type { StormFan, Transport } from './storm-fan.js';

/** CPU and deliveries at one moment of a storm benchmark. */
export interface Usage {
  at: number;
  server: number;
  proxy: number;
  bench: NodeJS.CpuUsage;
  delivered: number;
}

/** How long after the restore one fan had every event committed before it (undefined: never). */
export interface CatchUp {
  transport: Transport;
  ms: number | undefined;
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;

/** Per transport: median and max catch-up time, how many never caught up, reconnects and REST catch-ups. */
export function printCatchUp(say: (line: string) => void, catchUps: CatchUp[], fans: StormFan[]): void {
  for (const transport of ['ws', 'sse'] as const) {
    const mine = catchUps.filter((c) => c.transport === transport);
    if (mine.length === 0) continue;
    const times = mine.flatMap((c) => (c.ms === undefined ? [] : [c.ms])).sort((a, b) => a - b);
    const own = fans.filter((f) => f.transport === transport);
    const sum = (pick: (f: StormFan) => number) => own.reduce((s, f) => s + pick(f), 0);
    say(
      `${transport.padEnd(3)} ${mine.length} fans: caught up after the restore median ${(quantile(times, 0.5) / 1000).toFixed(2)} s, p90 ${(quantile(times, 0.9) / 1000).toFixed(2)} s, max ${((times.at(-1) ?? Number.NaN) / 1000).toFixed(2)} s; never ${mine.length - times.length}; reconnects ${sum((f) => f.reconnects)}, REST catch-ups ${sum((f) => f.restCatchUps)}`,
    );
  }
}

/**
 * Exactly once and in order, per fan: at the feed's end, no gap, no repeat, every position
 * delivered once; the fans that kept their ids got exactly the feed's ids in its order. Prints
 * the failures; true when there are none.
 */
export function checkFans(say: (line: string) => void, fans: StormFan[], startSeq: number, endSeq: number, feed: string[]): boolean {
  const wrong = fans.filter((f) => f.gaps > 0 || f.repeats > 0 || f.seq !== endSeq || f.delivered !== endSeq - startSeq);
  const sampled = fans.filter((f) => f.recordsIds);
  const differs = sampled.filter((f) => f.ids.length !== feed.length || f.ids.some((id, i) => id !== feed[i]));
  const total = (pick: (f: StormFan) => number) => fans.reduce((s, f) => s + pick(f), 0);
  say(
    `exactly once, in order: ${fans.length - wrong.length} of ${fans.length} fans (gaps ${total((f) => f.gaps)}, repeats ${total((f) => f.repeats)}, late arrivals put back ${total((f) => f.lateArrivals)}); ` +
      `${sampled.length - differs.length} of ${sampled.length} sampled fans got exactly the feed's ${feed.length} ids`,
  );
  for (const f of wrong.slice(0, 5)) say(`  ${f.transport} fan at seq ${f.seq} of ${endSeq}: delivered ${f.delivered}, gaps ${f.gaps}, repeats ${f.repeats}; last problem: ${f.lastProblem}`);
  return wrong.length === 0 && differs.length === 0 && feed.length === endSeq - startSeq;
}
