/**
 * Load test of a running deployment: fans join one room, post, like, vote and poll `updates` while
 * sockets hold the room, as the scenario says; then what was acknowledged is read back. Progress
 * every second on standard error; the table, then one JSON object as the last line, on standard
 * output. Exits 1 on errors (refused connections included), acknowledged writes lost, pushes
 * missing or repeated on any socket (counted socket by socket), polled pages missing or repeating
 * posts, double counts or a missed --slo; 2 on bad arguments. A dropped socket resumes from the
 * last seq it holds with nothing missing before it.
 *
 *   npm run loadtest -- --url http://node1:3000 --url http://node2:3000 --manage-token T \
 *     --scenario mixed --fans 2000 --duration 60 --slo p99=200,deliveryP99=500
 */
import { now } from './ws-fanout-stats.js';
import { Api, createApp } from './loadtest/http.js';
import { type Options, parseOptions, USAGE } from './loadtest/options.js';
import { planFor } from './loadtest/plan.js';
import { failed, summarize, table } from './loadtest/report.js';
import { Run } from './loadtest/run.js';
import { RoomSockets } from './loadtest/sockets.js';
import { buildStage, HOST, joinBefore } from './loadtest/stage.js';
import { readBack } from './loadtest/verify.js';

const err = (line: string) => process.stderr.write(`${line}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits until every socket has every acknowledged room event, or deliveries stop for 2 s. */
async function drained(sockets: RoomSockets, expected: number): Promise<void> {
  let last = -1;
  while (sockets.deliveries < expected && sockets.deliveries !== last) {
    last = sockets.deliveries;
    await sleep(2000);
  }
}

function progress(run: Run, sockets: RoomSockets, start: number, total: number): () => void {
  let lastRequests = 0;
  let lastDeliveries = 0;
  const timer = setInterval(() => {
    const { stats } = run;
    const elapsed = Math.round((now() - start) / 1000);
    err(
      `[${elapsed} s of ${total}] requests ${stats.requests} (+${stats.requests - lastRequests}/s) errors ${stats.errors} | sockets ${sockets.open} deliveries ${sockets.deliveries} (+${sockets.deliveries - lastDeliveries}/s)`,
    );
    lastRequests = stats.requests;
    lastDeliveries = sockets.deliveries;
  }, 1000);
  return () => clearInterval(timer);
}

async function main(options: Options): Promise<boolean> {
  const plan = planFor(options);
  const app = 'manageToken' in options.auth ? await createApp(options.urls[0] as string, options.auth.manageToken) : options.auth;
  const api = new Api(options.urls, app.appid, app.token, options.concurrency);
  const sockets = new RoomSockets();
  try {
    err(`loadtest: ${options.scenario}, ${options.fans} fans, ${options.durationSeconds} s, ${options.urls.length} node(s), app ${app.appid}`);
    err(`rate limits: ${plan.spreading}`);
    const stage = await buildStage(api);
    const before = plan.joinShare > 0 ? plan.speakers : options.fans;
    await joinBefore(api, stage, 0, before);
    await sockets.connect(options.wsUrls, app.appid, app.token, stage.roomid, options.sockets);
    err(`setup: room ${stage.roomid}, ${before} fan(s) joined before the run, ${options.sockets} sockets subscribed`);

    const run = new Run(api, stage, plan, options.fans, options.durationSeconds * 1000);
    run.acked.joins.add(HOST);
    run.acked.attempts.set('setup join', before + 1);
    const start = now() + 100;
    const stop = progress(run, sockets, start, options.durationSeconds);
    try {
      await run.execute(start);
      await drained(sockets, run.acked.roomEvents.size * options.sockets);
    } finally {
      stop();
    }
    const checks = await readBack(api, stage, run.acked);
    const summary = summarize(options, run.stats, run.acked, sockets, checks, run.pollers);
    const out = [`loadtest ${options.scenario}: ${plan.spreading}`, ...table(run.stats, checks, summary, run.pollers.length), JSON.stringify(summary)];
    process.stdout.write(`${out.join('\n')}\n`);
    return !failed(summary);
  } finally {
    sockets.close();
    await api.close();
  }
}

let options: Options;
try {
  options = parseOptions(process.argv.slice(2));
} catch (error) {
  err(`${(error as Error).message}\n\n${USAGE}`);
  process.exit(2);
}
process.exit((await main(options)) ? 0 : 1);
