/**
 * A reconnect storm: N fans follow one room (half over WebSocket, half over server-sent events),
 * each through a TCP proxy that, after a warm-up and a live phase, cuts every connection for CUT
 * seconds (and refuses new ones) while RATE posts/s go on through REST straight to the server (from a
 * process of their own, so that their latency is the server's, not the busy load generator's), then
 * restores the network. Fans resume from their last cursor as the protocol lets them (subscribe
 * with the cursor; Last-Event-ID), with full-jitter backoff capped at 1 s, through REST `updates`
 * pages when more than the replay horizon (5,000) behind. Rate limits are off.
 *
 * Prints: time from the restore until each fan had every event committed before it (median and
 * max per transport), posts failed and their p50/p99 during the recovery, server CPU per event
 * delivered during the recovery against per live delivery in the live phase of the same run, the
 * load generator's own CPU, and per fan exactly-once and in-order delivery (any gap or repeat, or a
 * sampled fan whose ids differ from the feed, fails the run with exit code 1).
 *
 *   npm run bench:storm                                   # N=1000 RATE=20 CUT=75, embedded default
 *   N=200 CUT=30 npm run bench:storm
 *   DATABASE_URL=postgres://… npm run bench:storm          # Postgres (a fresh database next to the one named)
 *   PROXY=haproxy|node      # the cutting proxy: HAProxy when installed (least CPU taken from the server), else one in Node
 *   TRANSPORT=ws|sse|both LIVE=15 WARMUP=5 SAMPLE_EVERY=50 RECOVERY_TIMEOUT=300
 *   ENCODING=compact|plain  # fans' frames: compact (WebSocket with deflated batches, as engage-client asks; event streams with ?encoding=compact), the default, or plain
 *   DATA_DIR=/path   # the embedded database of an earlier start (its initdb can outlast the start's 60 s on a busy machine)
 */
import { existsSync } from 'node:fs';
import { BUILT, spawnServer, type SpawnedServer } from '../test/helpers/spawn.js';
import { benchApp, type BenchApp } from './lib/app.js';
import { cpuSeconds, databaseCpuFrom } from './lib/cpu.js';
import { startCutProxy } from './lib/cut-proxy.js';
import { freshDatabase } from '../test/helpers/fresh-database.js';
import { HAPROXY } from '../test/helpers/haproxy.js';
import { startHaproxyCutProxy } from './lib/haproxy-cut-proxy.js';
import { joinSpeakers } from './lib/limits.js';
import { PosterProcess } from './lib/poster-process.js';
import { seqOfCursor, StormFan, type Transport } from './lib/storm-fan.js';
import { checkFans, printCatchUp, type Usage } from './lib/storm-report.js';
import { buildServerIfStale } from '../test/helpers/built-server.js';

const N = Number(process.env['N'] ?? 1000);
const RATE = Number(process.env['RATE'] ?? 20);
const CUT = Number(process.env['CUT'] ?? 75);
const LIVE = Number(process.env['LIVE'] ?? 15);
const WARMUP = Number(process.env['WARMUP'] ?? 5);
const TRANSPORT = (process.env['TRANSPORT'] ?? 'both') as Transport | 'both';
const SAMPLE_EVERY = Number(process.env['SAMPLE_EVERY'] ?? 50);
const ENCODING = process.env['ENCODING'] ?? 'compact';
if (!['compact', 'plain'].includes(ENCODING)) throw new Error(`ENCODING is compact or plain, not ${ENCODING}`);
const RECOVERY_TIMEOUT = Number(process.env['RECOVERY_TIMEOUT'] ?? 300);
const databaseUrl = process.env['DATABASE_URL'];
const PROXY = process.env['PROXY'];
if (PROXY !== undefined && !['haproxy', 'node'].includes(PROXY)) throw new Error(`PROXY is haproxy or node, not ${PROXY}`);
if (!['ws', 'sse', 'both'].includes(TRANSPORT)) throw new Error(`TRANSPORT is ws, sse or both, not ${TRANSPORT}`);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const say = (line: string) => process.stdout.write(`${line}\n`);

/** The room's head cursor; a swamped server (or machine) may not accept the connection in time, so it is asked again. */
async function head(app: BenchApp, roomId: string, attempts = 5): Promise<string> {
  try {
    return (await app.call<{ cursor: string }>('GET', `chat/rooms/${roomId}/updates?limit=1`)).cursor;
  } catch (err) {
    if (attempts <= 1) throw err;
    return head(app, roomId, attempts - 1);
  }
}

/** Waits until every fan reached `seq`; false when `seconds` passed first. */
async function allReach(fans: StormFan[], seq: number, seconds: number): Promise<boolean> {
  for (const fan of fans) fan.watch(seq);
  const deadline = performance.now() + seconds * 1000;
  while (fans.some((f) => f.reachedAt === undefined)) {
    if (performance.now() > deadline) return false;
    await sleep(20);
  }
  return true;
}

/** The server, rate limits off; a start that times out on a busy shared machine (the embedded default's initdb) is tried again. */
async function startServer(attempts = 3): Promise<SpawnedServer> {
  try {
    // DATA_DIR: an embedded database made before (a first start's initdb takes over a minute on a busy machine).
    const dataDir = process.env['DATA_DIR'];
    return await spawnServer({ RATE_LIMITS: 'off', LOG_LEVEL: 'error', ...(dataDir === undefined ? {} : { DATA_DIR: dataDir }), ...(url === undefined ? {} : { DATABASE_URL: url }) }, BUILT);
  } catch (err) {
    if (attempts <= 1) throw err;
    process.stderr.write('the server did not start in time; trying again\n');
    return startServer(attempts - 1);
  }
}

// The built server, as production runs it (built first when a source is newer than the build).
await buildServerIfStale();
const url = await freshDatabase(databaseUrl, 'storm');
const server = await startServer();
const serverPid = server.process.pid as number;
const proxyKind = PROXY === 'haproxy' || (PROXY === undefined && existsSync(HAPROXY)) ? 'haproxy' : 'node';
const proxy = await (proxyKind === 'haproxy' ? startHaproxyCutProxy(server.port) : startCutProxy(server.port)).catch(async (err: unknown) => {
  await server.stop();
  throw err;
});
const fans: StormFan[] = [];
try {
  const app = await benchApp(server.url);
  const room = await app.call<{ id: string }>('POST', 'chat/rooms', { name: 'storm', enableenterandexit: false });
  const speakers = await joinSpeakers(app, room.id, 20);
  const start = await head(app, room.id);
  const startSeq = seqOfCursor(start);
  const route = { endpoints: [`http://127.0.0.1:${proxy.port}`], appid: app.appid, token: app.token, roomId: room.id };
  for (let i = 0; i < N; i++) {
    const transport: Transport = TRANSPORT === 'both' ? (i % 2 === 0 ? 'ws' : 'sse') : TRANSPORT;
    fans.push(new StormFan(route, { transport, cursor: start, seq: startSeq, recordIds: i % SAMPLE_EVERY < 2, compact: ENCODING === 'compact' }));
  }
  for (let i = 0; i < fans.length; i += 100) await Promise.all(fans.slice(i, i + 100).map((f) => f.start()));
  say(
    `${N} fans (${TRANSPORT}; frames ${ENCODING}, event streams gzipped) on one room through a cutting proxy (${proxyKind}), ${RATE} posts/s, cut ${CUT} s, ${url === undefined ? 'embedded' : 'postgres'}; shared 2-core machine`,
  );

  const usage = (): Usage => ({ at: performance.now(), server: cpuSeconds(serverPid), proxy: cpuSeconds(proxy.pid), bench: process.cpuUsage(), delivered: fans.reduce((s, f) => s + f.delivered, 0) });

  // Warm-up (JIT, statements), then the live phase whose CPU per delivery is the yardstick.
  const posting = { base: server.url, appid: app.appid, token: app.token, roomId: room.id, speakers, rate: RATE };
  const warm = await PosterProcess.start(posting);
  await sleep(WARMUP * 1000);
  await warm.stop();
  if (!(await allReach(fans, seqOfCursor(await head(app, room.id)), 60))) throw new Error('fans did not keep up during the warm-up');
  const liveFrom = usage();
  const liveDb = await databaseCpuFrom(url);
  const live = await PosterProcess.start(posting);
  await sleep(LIVE * 1000);
  await live.stop();
  if (!(await allReach(fans, seqOfCursor(await head(app, room.id)), 60))) throw new Error('fans did not keep up during the live phase');
  const liveTo = usage();
  const liveDbCpu = await liveDb();

  // The storm: posts go on from before the cut until every fan is back.
  const storm = await PosterProcess.start(posting);
  await sleep(1000);
  const seqAtCut = seqOfCursor(await head(app, room.id));
  await proxy.cut();
  const cutAt = performance.now();
  await sleep(CUT * 1000);
  const headAtRestore = seqOfCursor(await head(app, room.id));
  for (const fan of fans) fan.watch(headAtRestore);
  const recoveryDb = await databaseCpuFrom(url);
  await proxy.restore();
  const restoreFrom = usage();
  const recovered = await allReach(fans, headAtRestore, RECOVERY_TIMEOUT);
  const restoreTo = usage();
  const catchUps = fans.map((f) => ({ transport: f.transport, ms: f.reachedAt === undefined ? undefined : f.reachedAt - restoreFrom.at }));
  const recoveryDbCpu = await recoveryDb();
  await sleep(1000);
  await storm.stop();
  // A post its client gave up on (timed out) may still commit later: the feed ends once its head stops moving.
  let finalHead = seqOfCursor(await head(app, room.id));
  for (let settledFor = 0; settledFor < 2; ) {
    await sleep(1000);
    const now = seqOfCursor(await head(app, room.id));
    settledFor = now === finalHead ? settledFor + 1 : 0;
    finalHead = now;
  }
  const settled = await allReach(fans, finalHead, 60);

  say(`missed per fan: ${headAtRestore - seqAtCut} events (posts during the cut: ${storm.between(cutAt, restoreFrom.at).count})`);
  printCatchUp(say, catchUps, fans);
  const recovery = storm.between(restoreFrom.at, restoreTo.at);
  const all = storm.between(0, Number.POSITIVE_INFINITY);
  say(`posts during the recovery: ${recovery.count}, failed ${recovery.failed}, p50 ${recovery.p50} ms, p99 ${recovery.p99} ms`);
  say(`posts of the storm (from 1 s before the cut to 1 s after the recovery): ${all.count}, failed ${all.failed}, p50 ${all.p50} ms, p99 ${all.p99} ms`);
  const liveCpu = liveTo.server - liveFrom.server;
  const liveDelivered = liveTo.delivered - liveFrom.delivered;
  const recoveryCpu = restoreTo.server - restoreFrom.server;
  const recoveryDelivered = restoreTo.delivered - restoreFrom.delivered;
  const perLive = (liveCpu * 1e6) / liveDelivered;
  const perReplayed = (recoveryCpu * 1e6) / Math.max(1, recoveryDelivered);
  say(`server CPU per live delivery: ${perLive.toFixed(2)} µs (${liveCpu.toFixed(2)} s for ${liveDelivered} deliveries of ${live.posts.length} posts)`);
  say(
    `server CPU per event delivered in the recovery: ${perReplayed.toFixed(2)} µs (${recoveryCpu.toFixed(2)} s for ${recoveryDelivered}, replayed and live) = ${(perReplayed / perLive).toFixed(2)}× a live delivery`,
  );
  if (url !== undefined) say(`postgres backends' CPU: live ${liveDbCpu.toFixed(2)} s, recovery ${recoveryDbCpu.toFixed(2)} s`);
  const benchCpu = (from: Usage, to: Usage) => (to.bench.user + to.bench.system - from.bench.user - from.bench.system) / 1e6;
  say(
    `load generator CPU: live phase bench ${benchCpu(liveFrom, liveTo).toFixed(2)} s + proxy ${(liveTo.proxy - liveFrom.proxy).toFixed(2)} s; recovery bench ${benchCpu(restoreFrom, restoreTo).toFixed(2)} s + proxy ${(restoreTo.proxy - restoreFrom.proxy).toFixed(2)} s (server ${liveCpu.toFixed(2)} s, ${recoveryCpu.toFixed(2)} s)`,
  );
  const feed = await feedIds(app, room.id, start);
  const ok = checkFans(say, fans, startSeq, finalHead, feed) && recovered && settled && all.failed === 0;
  if (!ok) process.exitCode = 1;
} finally {
  for (const fan of fans) fan.stop();
  await proxy.stop();
  await server.stop();
}

/** Every event id of the room's feed after `cursor`, in order, read through REST pages. */
async function feedIds(app: BenchApp, roomId: string, cursor: string): Promise<string[]> {
  const ids: string[] = [];
  for (let more = true; more; ) {
    const page = await app.call<{ events: { id: string }[]; cursor: string; more: boolean }>('GET', `chat/rooms/${roomId}/updates?limit=500&cursor=${cursor}`);
    ids.push(...page.events.map((e) => e.id));
    cursor = page.cursor;
    more = page.more;
  }
  return ids;
}
