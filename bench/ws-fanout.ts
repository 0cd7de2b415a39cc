/**
 * WebSocket fan-out benchmark: N sockets subscribed to one room, RATE messages/s posted over
 * REST for DURATION seconds; reports deliveries/s, publish-to-delivery latency (send time embedded in the
 * message), memory per idle socket (server RSS delta / N, each read after a full GC) and CPU of every process, for our server
 * on one node and on two nodes through Redis, and for the Socket.IO 4 baseline the same way.
 *
 *   ulimit -n 65536   # each side holds N sockets
 *   SOCKETS=10000 RATE=10 DURATION=10 DATABASE_URL=postgres://... tsx bench/ws-fanout.ts
 *
 * WARMUP seconds (default 3) of posting come before each measured run, uncounted.
 * TARGETS picks the runs (default bare1,engage1,engage2,sio1,sio2; engage1c takes compact frames, as
 * engage-client does, beside bare1c, the ceiling for frames of their size; bare1 is the machine's ceiling:
 * bare uWS publishing a frame of our size, bench/uws-fanout-server.ts; soketi1 and soketi2 run
 * Soketi, a Pusher-protocol server on uWS, bench/ws-fanout-soketi.ts). With DATABASE_URL (a Postgres
 * where a fresh database is created) our server stores in Postgres, else in embedded PGlite;
 * two-node runs need DATABASE_URL and redis-server on PATH.
 */
import { freshDatabase, RedisProcess } from '../test/cluster/infra.js';
import { SocketPool } from './ws-fanout-clients.js';
import { cpuSeconds } from './lib/cpu.js';
import { rateLimitNote } from './lib/limits.js';
import { withProgress } from './lib/progress.js';
import { now, round, rssBytes, Samples } from './ws-fanout-stats.js';
import { soketiTarget } from './ws-fanout-soketi.js';
import { bareTarget, engageTarget, socketIoTarget, type Target } from './ws-fanout-targets.js';

const SOCKETS = Number(process.env['SOCKETS'] ?? 10_000);
const RATE = Number(process.env['RATE'] ?? 10);
/** Each user posts at most once a second: well inside the default per-user chat budget. */
const SPEAKERS = Math.max(10, Math.ceil(RATE));
const DURATION = Number(process.env['DURATION'] ?? 10);
/** Seconds of posting before the measured run, not counted: both the server and the generator run warm, whichever target goes first. */
const WARMUP = Number(process.env['WARMUP'] ?? 3);
const TARGETS = (process.env['TARGETS'] ?? 'bare1,engage1,engage2,sio1,sio2').split(',');
const DATABASE_URL = process.env['DATABASE_URL'];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const out = (line: string) => process.stdout.write(`${line}\n`);

interface Result {
  target: string;
  sockets: number;
  posted: number;
  failedPosts: number;
  expected: number;
  delivered: number;
  deliveriesPerSec: number;
  latencyByNode: { p50: number; p99: number; max: number; samples: number }[];
  /** Per node, p50/p99 over messages of the first sampled delivery: the fan-out head, without the generator's drain time. */
  firstDeliveryByNode: { p50: number; p99: number }[];
  /** Round trip of the REST post itself (the write path, before any fan-out). */
  postLatency: { p50: number; p99: number };
  bytesPerIdleSocket: number;
  serverCpuPercent: number[];
  /** Deliveries per CPU-second of all server processes: capacity independent of the generator. */
  deliveriesPerServerCpuSecond: number;
  generatorCpuPercent: number;
}

/** Resident memory of the servers after each has run a full GC (SIGUSR2, bench/lib/gc-on-signal.mjs). */
async function settledRss(pids: number[]): Promise<number> {
  for (const pid of pids) process.kill(pid, 'SIGUSR2');
  await sleep(1000);
  return pids.reduce((sum, pid) => sum + rssBytes(pid), 0);
}

/** Posts RATE messages a second for `seconds`, paced from `start`; resolves once every post is answered. */
async function postAtRate(target: Target, seconds: number, start: number, label: string): Promise<{ posted: number; failedPosts: number; postTimes: Samples }> {
  let posted = 0;
  let failedPosts = 0;
  const posts: Promise<void>[] = [];
  const postTimes = new Samples(RATE * seconds);
  await withProgress(`${target.name}: ${label} ${RATE}/s`, seconds, async () => {
    for (let i = 0; i < RATE * seconds; i++) {
      const due = start + (i * 1000) / RATE;
      if (due > now()) await sleep(due - now());
      const sentAt = now();
      const done = target.post(`m t=${sentAt}`).then(
        (status) => {
          postTimes.add(now() - sentAt);
          if (status === 200) posted++;
          else failedPosts++;
        },
        () => {
          failedPosts++;
        },
      );
      posts.push(done);
    }
  });
  await Promise.all(posts);
  return { posted, failedPosts, postTimes };
}

/** Waits until every socket has every message, or deliveries stop coming. */
async function drained(pool: SocketPool, posted: number): Promise<void> {
  let last = -1;
  while (pool.deliveries < posted * SOCKETS && pool.deliveries !== last) {
    last = pool.deliveries;
    await sleep(2000);
  }
}

async function measure(target: Target): Promise<Result> {
  const pool = new SocketPool(target.dialect, target.urls.length);
  const rssBefore = await settledRss(target.pids);
  const connectStart = now();
  await pool.open(target.urls, SOCKETS);
  out(`  ${target.name}: ${SOCKETS} sockets subscribed in ${round((now() - connectStart) / 1000)} s`);
  await sleep(3000);
  const rssIdle = await settledRss(target.pids);
  if (WARMUP > 0) {
    await drained(pool, (await postAtRate(target, WARMUP, now(), 'warming up,')).posted);
    pool.reset();
  }

  const cpuBefore = target.pids.map(cpuSeconds);
  const genBefore = process.cpuUsage();
  const start = now();
  const { posted, failedPosts, postTimes } = await postAtRate(target, DURATION, start, 'posting');
  await drained(pool, posted);
  const elapsed = (Math.max(pool.lastDelivery, start + 1) - start) / 1000;
  const wall = (now() - start) / 1000;
  const gen = process.cpuUsage(genBefore);
  const serverCpu = target.pids.map((pid, i) => cpuSeconds(pid) - (cpuBefore[i] as number));
  const result: Result = {
    target: target.name,
    sockets: SOCKETS,
    posted,
    failedPosts,
    expected: posted * SOCKETS,
    delivered: pool.deliveries,
    deliveriesPerSec: Math.round(pool.deliveries / elapsed),
    latencyByNode: pool.latency.map((s) => {
      const { p50, p99, max, count } = s.summary();
      return { p50, p99, max, samples: count };
    }),
    firstDeliveryByNode: pool.firstDelivery.map((m) => {
      const s = new Samples(m.size);
      for (const ms of m.values()) s.add(ms);
      const { p50, p99 } = s.summary();
      return { p50, p99 };
    }),
    postLatency: (({ p50, p99 }) => ({ p50, p99 }))(postTimes.summary()),
    bytesPerIdleSocket: Math.round((rssIdle - rssBefore) / SOCKETS),
    serverCpuPercent: serverCpu.map((cpu) => round((cpu / wall) * 100)),
    deliveriesPerServerCpuSecond: Math.round(pool.deliveries / serverCpu.reduce((a, b) => a + b, 0)),
    generatorCpuPercent: round(((gen.user + gen.system) / 1e6 / wall) * 100),
  };
  pool.closeAll();
  return result;
}

async function main(): Promise<void> {
  const needsCluster = TARGETS.some((t) => t.endsWith('2'));
  if (needsCluster && DATABASE_URL === undefined) throw new Error('two-node runs need DATABASE_URL; or set TARGETS=engage1,sio1');
  const redis = needsCluster ? await RedisProcess.start() : undefined;
  const db = DATABASE_URL !== undefined ? await freshDatabase(DATABASE_URL) : undefined;
  const storage: Record<string, string> = db === undefined ? {} : { DATABASE_URL: db.url };
  const factories: Record<string, () => Promise<Target>> = {
    bare1: () => bareTarget(),
    // Compact frames (engage-client's) of these messages are about 80 bytes: the ceiling publishes frames of that size.
    bare1c: () => bareTarget(80),
    engage1: () => engageTarget(1, storage, SPEAKERS),
    engage1c: () => engageTarget(1, storage, SPEAKERS, true),
    // BENCH_ROOT: another checkout (a commit before a change), measured the same way.
    engage1before: () => engageTarget(1, storage, SPEAKERS, false, process.env['BENCH_ROOT'] ?? ''),
    engage2: () => engageTarget(2, { ...storage, REDIS_URL: redis?.url ?? '' }, SPEAKERS),
    sio1: () => socketIoTarget(1, undefined),
    sio2: () => socketIoTarget(2, redis?.url),
    soketi1: () => soketiTarget(1, undefined),
    soketi2: () => soketiTarget(2, redis?.url),
  };
  const results: Result[] = [];
  out(`ws-fanout: SOCKETS=${SOCKETS} RATE=${RATE}/s DURATION=${DURATION} s; ${rateLimitNote()}: posts round-robin over ${SPEAKERS} users`);
  try {
    for (const name of TARGETS) {
      const target = await factories[name]?.();
      if (target === undefined) throw new Error(`unknown target ${name}`);
      try {
        results.push(await measure(target));
      } finally {
        await target.stop();
      }
      out(JSON.stringify(results.at(-1)));
    }
  } finally {
    await redis?.kill();
    await db?.drop();
  }
  out(
    '\n| target | delivered / expected | deliveries/s | deliveries per server CPU-s | p50 / p99 ms per node | first delivery p50 / p99 ms | post p50 / p99 ms | bytes per idle socket | server CPU % | generator CPU % |',
  );
  out('|---|---|---|---|---|---|---|---|---|---|');
  for (const r of results) {
    const latency = r.latencyByNode.map((l) => `${l.p50} / ${l.p99}`).join(', ');
    const first = r.firstDeliveryByNode.map((l) => `${l.p50} / ${l.p99}`).join(', ');
    out(
      `| ${r.target} | ${r.delivered} / ${r.expected} | ${r.deliveriesPerSec} | ${r.deliveriesPerServerCpuSecond} | ${latency} | ${first} | ${r.postLatency.p50} / ${r.postLatency.p99} | ${r.bytesPerIdleSocket} | ${r.serverCpuPercent.join(', ')} | ${r.generatorCpuPercent} |`,
    );
  }
}

await main();
