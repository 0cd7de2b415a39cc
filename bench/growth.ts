/**
 * Costs as the store grows: the same reads and writes on a small store (1,000 events in one room,
 * 50 articles, 250 users) and on a grown one (HISTORY events in one room, ROOMS articles, USERS
 * users; an article is a room, a conversation and a poll, see bench/lib/grow-store.ts), each end a
 * server of its own, the built server with rate limits off. The rows are loaded straight into the
 * database while the server is stopped, not through the API. At each end, after a warm-up of each
 * request: server CPU per request (from the server process, /proc; on Postgres also the CPU of
 * the server's Postgres backends) and requests/s, first for the reads of issue 41's table; then,
 * on the same store restarted to keep no user, room or shared answer in memory (COLD_ENV), for the
 * reads of one object by id that nobody read recently (cold: each request a different article or
 * user, in a random order over the whole store, none read twice, the load ending before it would;
 * on the small store, with fewer than 2,000 of a kind, they are read round and round, each from the
 * database as the caches keep nothing); then, restarted as it was, for the three searches (a word
 * one message, one fan, one room carries), a post, a join and a like; last the time a restart
 * after kill -9 takes to answer /healthz. Prints both ends,
 * their ratio (large/small), each read's cost as a multiple of the head poll's at each end (on
 * Postgres, the server's and the database's CPU together) and the ratio of those multiples.
 *
 *   npm run bench:growth                                   # embedded
 *   DATABASE_URL=postgres://… npm run bench:growth         # Postgres (fresh databases {name}_growth_small/_large)
 *   HISTORY=1000000 ROOMS=20000 USERS=100000 SECONDS=5 CONNECTIONS=8
 *   BENCH_ROOT=/path/to/checkout                          # another checkout of the server (a commit before a change), measured the same way
 *   GROWTH_STORES=/dir                                    # keep each grown store there and start from a copy of it next time (see bench/lib/kept-stores.ts)
 *   ONLY=cold                                             # only the requests whose name contains this
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readUpdatesCursor, updatesCursor } from '../src/chat/feed/cursor.js';
import { initEmbeddedCluster } from '../src/db/embedded.js';
import { BUILT, spawnServer, type SpawnedServer } from '../test/helpers/spawn.js';
import { benchApp, benchClient, type BenchApp } from './lib/app.js';
import { load } from './lib/autocannon.js';
import { cpuSeconds, databaseCpuFrom, settled } from './lib/cpu.js';
import { COLD_ENV, coldReads, type Objects } from './lib/cold-reads.js';
import { freshDatabase } from '../test/helpers/fresh-database.js';
import { growStore, growTarget, rareWord, type StoreSize } from './lib/grow-store.js';
import { KeptStores, type GrownMeta } from './lib/kept-stores.js';
import { primeFirstCommentPages } from './lib/prime-pages.js';
import { joinSpeakers } from './lib/limits.js';
import { buildServerIfStale } from '../test/helpers/built-server.js';

const SMALL: StoreSize = { history: 1_000, rooms: 50, users: 250 };
const LARGE: StoreSize = { history: Number(process.env['HISTORY'] ?? 1_000_000), rooms: Number(process.env['ROOMS'] ?? 20_000), users: Number(process.env['USERS'] ?? 100_000) };
const seconds = Number(process.env['SECONDS'] ?? 5);
const connections = Number(process.env['CONNECTIONS'] ?? 8);
const databaseUrl = process.env['DATABASE_URL'];
const keptStores = process.env['GROWTH_STORES'] === undefined ? undefined : new KeptStores(process.env['GROWTH_STORES'], process.env['BENCH_ROOT'] ?? '.', databaseUrl);
const only = process.env['ONLY'];
/** The row of each kind whose rare word the searches look for (present at both ends). */
const SOUGHT = 7;

interface Measure {
  name: string;
  method: 'GET' | 'POST';
  path: string;
  /** Bodies sent in turn (POST). */
  bodies?: () => string[];
  /** Each request reads another object (`path` names the kind), see `shuffled`. */
  objects?: Objects;
}

interface Result {
  cpuUs: number;
  /** CPU per request of the server's Postgres backends (0 on the embedded database, which is in the server's process). */
  dbCpuUs: number;
  requestsPerSec: number;
  failed: number;
}

/**
 * The requests measured on the server of default settings, in order: reads (the head poll first),
 * then searches and writes (the join's new fans are the like's likers), which the cold reads are
 * measured between: a server started on a store just written to tends it meanwhile.
 */
function measures(roomId: string, lastSeq: number, eventId: string, speakers: string[], end: string): { reads: Measure[]; rest: Measure[] } {
  const fans = Array.from({ length: 50_000 }, (_, i) => `${end}-fan${i}`);
  const room = `chat/rooms/${roomId}`;
  const reads: Measure[] = [
    { name: HEAD_POLL, method: 'GET', path: `${room}/updates?cursor=${updatesCursor(lastSeq)}` },
    { name: 'updates 100 behind', method: 'GET', path: `${room}/updates?cursor=${updatesCursor(lastSeq - 100)}` },
    { name: 'updates without cursor', method: 'GET', path: `${room}/updates` },
    { name: 'room details', method: 'GET', path: room },
    { name: 'rooms list (limit 50)', method: 'GET', path: 'chat/rooms?limit=50' },
    { name: 'user by id', method: 'GET', path: `user/users/${speakers[0]}` },
  ];
  const rest: Measure[] = [
    { name: 'search events (one message)', method: 'POST', path: 'chat/searchevents', bodies: () => [JSON.stringify({ roomid: roomId, body: rareWord('event', SOUGHT) })] },
    { name: 'search events (common word)', method: 'POST', path: 'chat/searchevents', bodies: () => [JSON.stringify({ roomid: roomId, body: 'message' })] },
    { name: 'search users (one fan)', method: 'POST', path: 'user/search', bodies: () => [JSON.stringify({ name: rareWord('user', SOUGHT) })] },
    { name: 'rooms filterbyname (one room)', method: 'GET', path: `chat/rooms?filterbyname=${rareWord('room', SOUGHT)}` },
    { name: 'post', method: 'POST', path: `${room}/command`, bodies: () => speakers.map((userid, i) => JSON.stringify({ userid, command: `growth post ${i}` })) },
    { name: 'join', method: 'POST', path: `${room}/join`, bodies: () => fans.map((userid) => JSON.stringify({ userid, displayname: userid })) },
    // Each speaker likes, then (after every other has) takes it back: the same work at both ends, however many are sent.
    {
      name: 'like',
      method: 'POST',
      path: `${room}/events/${eventId}/react`,
      bodies: () => [true, false].flatMap((reacted) => speakers.map((userid) => JSON.stringify({ userid, reaction: 'like', reacted }))),
    },
  ];
  return { reads, rest };
}

const HEAD_POLL = 'updates at the head';

/** Of the objects not read yet, the share the warm-up reads. */
const WARM_UP_SHARE = 0.1;

async function measure(server: SpawnedServer, app: BenchApp, m: Measure, warmUp: boolean, url: string | undefined): Promise<Result> {
  const pid = server.process.pid as number;
  const left = m.objects?.left();
  // Reads of objects not read before stop before they would read one again.
  const amount = left === undefined ? undefined : Math.max(connections, Math.floor(warmUp ? left * WARM_UP_SHARE : left));
  await settled(pid);
  const databaseCpu = await databaseCpuFrom(url);
  const before = cpuSeconds(pid);
  const result = await load({
    url: app.url(m.path),
    method: m.method,
    headers: { 'x-api-token': app.token },
    connections,
    durationSeconds: warmUp ? 1 : seconds,
    ...(m.bodies === undefined ? {} : { bodies: m.bodies() }),
    ...(m.objects === undefined ? {} : { nextPath: m.objects.next }),
    ...(amount === undefined ? {} : { amount }),
  });
  // The requests still in flight when the load stopped (by time, not by amount) are done, and counted, before the CPU is read.
  await settled(pid);
  const answered = Math.max(1, result.answered + (amount !== undefined && result.answered >= amount ? 0 : connections));
  const dbSeconds = await databaseCpu();
  return { cpuUs: ((cpuSeconds(pid) - before) * 1e6) / answered, dbCpuUs: (dbSeconds * 1e6) / answered, requestsPerSec: result.requestsPerSec, failed: result.non2xx + result.errors };
}

/** Rate limits off, and no search refused for running beside the others: what a search costs is measured, not its cap. */
const serverEnv = (dataDir: string, url: string | undefined, extra: Record<string, string> = {}) => ({
  ...extra,
  DATA_DIR: dataDir,
  RATE_LIMITS: 'off',
  SEARCH_MAX_CONCURRENT: String(connections),
  ...(url === undefined ? {} : { DATABASE_URL: url }),
});

/**
 * Milliseconds from spawning the server on a store a kill -9 left to its first healthy answer;
 * Infinity when it did not answer within spawnServer's 60 s (a busy shared machine).
 */
async function restartAfterKill(server: SpawnedServer, dataDir: string, url: string | undefined): Promise<{ ms: number; server: SpawnedServer | undefined }> {
  await server.kill('SIGKILL');
  const started = performance.now();
  try {
    const again = await spawnServer(serverEnv(dataDir, url), BUILT, process.env['BENCH_ROOT']);
    return { ms: performance.now() - started, server: again };
  } catch (err) {
    console.log(`restart after kill -9 failed: ${(err as Error).message.split('\n')[0]}`);
    return { ms: Number.POSITIVE_INFINITY, server: undefined };
  }
}

/** The server on this store, tried three times: on a busy shared machine one start may outlast spawnServer's 60 s. */
async function start(dataDir: string, url: string | undefined, extra: Record<string, string> = {}): Promise<SpawnedServer> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await spawnServer(serverEnv(dataDir, url, extra), BUILT, process.env['BENCH_ROOT']);
    } catch (err) {
      if (attempt === 3) throw err;
      console.log(`server start ${attempt} failed (${(err as Error).message.split('\n')[0]}); trying again`);
    }
  }
}

/** A store of `size` grown in `dataDir` or the database of `url` (its server stopped), or a copy of the one kept. */
async function storeOf(name: string, size: StoreSize, dataDir: string, url: string | undefined): Promise<GrownMeta> {
  const kept = await keptStores?.restore(size, dataDir, url);
  if (kept !== undefined) {
    console.log(`${name}: a copy of the kept store`);
    return kept;
  }
  const server = await start(dataDir, url);
  let meta: GrownMeta;
  try {
    const app = await benchApp(server.url);
    meta = { ...(await growTarget(app, `growth ${name}`)), token: app.token };
  } finally {
    await server.stop();
  }
  const loading = performance.now();
  await growStore({ dataDir, databaseUrl: url }, meta, size);
  console.log(`${name}: grew ${size.history} events, ${size.rooms} articles, ${size.users} users in ${((performance.now() - loading) / 1000).toFixed(1)} s`);
  const primer = await start(dataDir, url);
  try {
    await primeFirstCommentPages(benchClient(primer.url, meta.appId, meta.token), size.rooms, `${primer.url}/metrics`);
  } finally {
    await primer.stop();
  }
  await keptStores?.keep(size, dataDir, url, meta);
  return meta;
}

/** One end: a store of `size`, its measures, its restart time. */
async function end(name: string, size: StoreSize): Promise<{ results: Map<string, Result>; restartMs: number }> {
  const dataDir = mkdtempSync(join(tmpdir(), `growth-${name}-`));
  const url = await freshDatabase(databaseUrl, `growth_${name}`);
  // The embedded cluster made before the server starts: on a busy machine initdb alone may outlast spawnServer's patience.
  if (url === undefined) await initEmbeddedCluster(dataDir);
  let server: SpawnedServer | undefined;
  try {
    const meta = await storeOf(name, size, dataDir, url);
    server = await start(dataDir, url);
    const app = benchClient(server.url, meta.appId, meta.token);
    // A kept store's sessions ended long after it was grown (the room expires idle sessions): its speakers join again, or their posts and likes are refused.
    await joinSpeakers(app, meta.roomId, meta.speakers.length);
    const target = await app.call<{ speech: { id: string } }>('POST', `chat/rooms/${meta.roomId}/command`, { userid: meta.speakers[0], command: 'like me' });
    const head = await app.call<{ cursor: string }>('GET', `chat/rooms/${meta.roomId}/updates?limit=1`);
    const lastseq = readUpdatesCursor(head.cursor);
    const results = new Map<string, Result>();
    const measureAll = async (list: Measure[], on: SpawnedServer, onApp: BenchApp) => {
      for (const m of list) {
        if (only !== undefined && m.name !== HEAD_POLL && !m.name.includes(only)) continue;
        // Its JIT, its prepared statements and the pages it reads warmed before it is counted.
        await measure(on, onApp, m, true, url);
        const r = await measure(on, onApp, m, false, url);
        results.set(m.name, r);
        console.log(
          `${name}: ${m.name}: ${r.cpuUs.toFixed(0)} µs CPU/request${url === undefined ? '' : ` (+${r.dbCpuUs.toFixed(0)} µs in Postgres)`}, ${r.requestsPerSec}/s${r.failed > 0 ? `, ${r.failed} failed` : ''}`,
        );
      }
    };
    const { reads, rest } = measures(meta.roomId, lastseq, target.speech.id, meta.speakers, name);
    await measureAll(reads, server, app);
    /** The server started again on this store with `env`, and a client of it. */
    const restarted = async (env: Record<string, string>) => {
      await server?.stop();
      const again = await start(dataDir, url, env);
      server = again;
      return { on: again, client: benchClient(again.url, meta.appId, meta.token) };
    };
    if (coldReads(app, size).some((m) => only === undefined || m.name.includes(only))) {
      const cold = await restarted(COLD_ENV);
      await measureAll(coldReads(cold.client, size), cold.on, cold.client);
      const plain = await restarted({});
      await measureAll(rest, plain.on, plain.client);
    } else await measureAll(rest, server, app);
    const restart = await restartAfterKill(server, dataDir, url);
    server = restart.server;
    console.log(`${name}: restart after kill -9: ${restart.ms.toFixed(0)} ms`);
    return { results, restartMs: restart.ms };
  } finally {
    await server?.stop().catch(() => undefined);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await buildServerIfStale();
const where = databaseUrl === undefined ? 'embedded' : 'Postgres';
console.log(`growth on ${where}: small ${JSON.stringify(SMALL)} vs large ${JSON.stringify(LARGE)}, ${seconds} s per request kind, ${connections} connections, rate limits off`);
const small = await end('small', SMALL);
const large = await end('large', LARGE);
/** CPU per request, the server's and on Postgres the database's too. */
const total = (r: Result) => r.cpuUs + r.dbCpuUs;
const headShare = (r: Result, results: Map<string, Result>) => total(r) / total(results.get(HEAD_POLL) as Result);
const timesHead = (r: Result, results: Map<string, Result>) => headShare(r, results).toFixed(2);
const rows = [...small.results].map(([name, s]) => {
  const l = large.results.get(name) as Result;
  return {
    request: name,
    'small µs': Math.round(s.cpuUs),
    'large µs': Math.round(l.cpuUs),
    ratio: (l.cpuUs / s.cpuUs).toFixed(2),
    'small ×head': timesHead(s, small.results),
    'large ×head': timesHead(l, large.results),
    // The growth with each end measured against its own head poll: a machine whose speed drifted between the two ends moves both alike.
    '×head ratio': (headShare(l, large.results) / headShare(s, small.results)).toFixed(2),
    ...(databaseUrl === undefined
      ? {}
      : { 'small db µs': Math.round(s.dbCpuUs), 'large db µs': Math.round(l.dbCpuUs), 'db ratio': (l.dbCpuUs / s.dbCpuUs).toFixed(2), 'total ratio': (total(l) / total(s)).toFixed(2) }),
    'small /s': s.requestsPerSec,
    'large /s': l.requestsPerSec,
    failed: s.failed + l.failed,
  };
});
rows.push({
  request: 'restart after kill -9 (ms)',
  'small µs': Math.round(small.restartMs),
  'large µs': Math.round(large.restartMs),
  ratio: (large.restartMs / small.restartMs).toFixed(2),
  'small ×head': '',
  'large ×head': '',
  '×head ratio': '',
  'small /s': 0,
  'large /s': 0,
  failed: 0,
});
console.table(rows);
