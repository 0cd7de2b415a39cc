/**
 * Issue 55's goals at volume. A store of HISTORY events in one room, ROOMS rooms and USERS users
 * (bench/lib/grow-store.ts) is served by the built server (rate limits off) while a poster in a
 * process of its own posts RATE messages/s:
 *
 * 1. posts' p50/p99 for BASELINE seconds, then while POST /api/v3/manage/backups runs, and their
 *    ratio; the event loop's longest stalls in both windows (a 1 ms timer preloaded into the
 *    server, bench/lib/loop-stalls.mjs); every post answered before the backup was asked for is
 *    looked for in the file;
 * 2. once posting has stopped, a second backup, `npm run restore` of it into an empty DATA_DIR and
 *    `npm run move` of the server's DATA_DIR (stopped) into an empty PostgreSQL database
 *    (TARGET_DATABASE_URL's server, `{name}_bench_moved`; with it also a restore into
 *    `{name}_bench_restored`): the time each takes and the longest wait between two progress lines;
 * 3. SAMPLES cursors at random seqs of the big room: the `updates` page from each, from the
 *    original and from each copy, byte for byte.
 *
 *   npm run bench:backup
 *   TARGET_DATABASE_URL=postgres://postgres@127.0.0.1:55432/engage_x npm run bench:backup
 *   HISTORY=1000000 ROOMS=20000 USERS=100000 RATE=500 BASELINE=20 SAMPLES=1000 PAGE=50
 */
import { spawn } from 'node:child_process';
import { createReadStream, createWriteStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { updatesCursor } from '../src/chat/feed/cursor.js';
import { initEmbeddedCluster } from '../src/db/embedded.js';
import { buildServerIfStale } from '../test/helpers/built-server.js';
import { dropDatabase, freshDatabase } from '../test/helpers/fresh-database.js';
import { BUILT, MANAGE_TOKEN, spawnServer, type SpawnedServer } from '../test/helpers/spawn.js';
import { benchApp, benchClient, type BenchApp } from './lib/app.js';
import { growStore, growTarget, type StoreSize } from './lib/grow-store.js';
import { PosterProcess } from './lib/poster-process.js';

const SIZE: StoreSize = { history: Number(process.env['HISTORY'] ?? 1_000_000), rooms: Number(process.env['ROOMS'] ?? 20_000), users: Number(process.env['USERS'] ?? 100_000) };
const RATE = Number(process.env['RATE'] ?? 500);
const BASELINE_S = Number(process.env['BASELINE'] ?? 20);
const SAMPLES = Number(process.env['SAMPLES'] ?? 1000);
const PAGE = Number(process.env['PAGE'] ?? 50);
const targetUrl = process.env['TARGET_DATABASE_URL'];
const ROOT = new URL('..', import.meta.url).pathname;
const work = mkdtempSync(join(tmpdir(), 'bench-backup-'));
const dataDir = join(work, 'data');
const stallsFile = join(work, 'stalls.json');

const serverEnv = (env: Record<string, string>) => ({ RATE_LIMITS: 'off', DATABASE_URL: '', ...env });
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

interface Stall {
  endedAt: number;
  ms: number;
}

/** The longest stall that ended in [from, to) (wall clock), and how many passed 50 ms. */
function stallsBetween(stalls: Stall[], from: number, to: number): { longest: number; over50: number } {
  const inside = stalls.filter((s) => s.endedAt >= from && s.endedAt < to);
  return { longest: Math.max(0, ...inside.map((s) => s.ms)), over50: inside.filter((s) => s.ms > 50).length };
}

async function readStalls(server: SpawnedServer): Promise<Stall[]> {
  server.process.kill('SIGUSR2');
  await new Promise((r) => setTimeout(r, 300));
  return JSON.parse(readFileSync(stallsFile, 'utf8')) as Stall[];
}

/** Downloads a backup into `file`; wall-clock start and end. */
async function backupTo(base: string, file: string): Promise<{ startedAt: number; endedAt: number; bytes: number }> {
  const startedAt = Date.now();
  const res = await fetch(`${base}/api/v3/manage/backups`, { method: 'POST', headers: { 'x-manage-token': MANAGE_TOKEN } });
  if (res.status !== 200 || res.body === null) throw new Error(`backup answered ${res.status}: ${await res.text()}`);
  const out = createWriteStream(file);
  await pipeline(Readable.fromWeb(res.body as import('node:stream/web').ReadableStream), out);
  return { startedAt, endedAt: Date.now(), bytes: out.bytesWritten };
}

/** The `storm N` posts a backup file holds (the poster's bodies). */
async function stormPostsIn(file: string): Promise<Set<number>> {
  const found = new Set<number>();
  const lines = createInterface({ input: createReadStream(file).pipe(createGunzip()), crlfDelay: Number.POSITIVE_INFINITY });
  for await (const line of lines) for (const m of line.matchAll(/\tstorm (\d+)\t/g)) found.add(Number(m[1]));
  return found;
}

/** Runs `npm run restore` or `npm run move` (built); its time and the longest wait between two of its progress lines. */
async function timedCommand(command: 'restore' | 'move', args: string[], env: Record<string, string>): Promise<{ ms: number; longestSilenceMs: number; last: string }> {
  const started = performance.now();
  const child = spawn(process.execPath, [`dist/cli/${command}.js`, ...args], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let lastLineAt = started;
  let longestSilenceMs = 0;
  let last = '';
  let stdout = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  for await (const line of createInterface({ input: child.stderr })) {
    const now = performance.now();
    longestSilenceMs = Math.max(longestSilenceMs, now - lastLineAt);
    lastLineAt = now;
    last = line;
    if (!line.startsWith(`${command}: `)) console.log(`  ${command}: ${line}`);
  }
  const code = await new Promise<number | null>((resolve) => (child.exitCode !== null ? resolve(child.exitCode) : child.once('exit', resolve)));
  if (code !== 0) throw new Error(`${command} exited with ${code}: ${last}\n${stdout}`);
  return { ms: performance.now() - started, longestSilenceMs, last };
}

/** SAMPLES updates pages from random cursors of the room, from `a` and `b`: how many differ. */
async function comparePages(a: BenchApp, b: BenchApp, roomId: string, lastSeq: number): Promise<{ compared: number; differing: number; bytes: number }> {
  let differing = 0;
  let bytes = 0;
  for (let i = 0; i < SAMPLES; i++) {
    const path = `chat/rooms/${roomId}/updates?limit=${PAGE}&cursor=${updatesCursor(Math.floor(Math.random() * (lastSeq + 1)))}`;
    const [x, y] = await Promise.all([fetch(a.url(path), { headers: { 'x-api-token': a.token } }), fetch(b.url(path), { headers: { 'x-api-token': b.token } })]);
    const [tx, ty] = await Promise.all([x.text(), y.text()]);
    if (x.status !== 200 || tx !== ty) differing++;
    bytes += tx.length;
  }
  return { compared: SAMPLES, differing, bytes };
}

await buildServerIfStale();
console.log(`backup bench (embedded source): ${JSON.stringify(SIZE)}, posts at ${RATE}/s, baseline ${BASELINE_S} s, ${SAMPLES} sampled cursors of ${PAGE}`);
await initEmbeddedCluster(dataDir);
const stallEnv = { NODE_OPTIONS: `--import ${join(ROOT, 'bench/lib/loop-stalls.mjs')}`, ENGAGE_STALLS_FILE: stallsFile };
let server = await spawnServer(serverEnv({ DATA_DIR: dataDir, ...stallEnv }), BUILT);
let app = await benchApp(server.url);
const target = await growTarget(app, 'backup bench');
await server.stop();
const growing = performance.now();
await growStore({ dataDir, databaseUrl: undefined }, target, SIZE);
console.log(`grew the store in ${seconds(performance.now() - growing)}`);
const moved = targetUrl === undefined ? undefined : await freshDatabase(targetUrl, 'bench_moved');
const restoredUrl = targetUrl === undefined ? undefined : await freshDatabase(targetUrl, 'bench_restored');
const copies: SpawnedServer[] = [];
try {
  server = await spawnServer(serverEnv({ DATA_DIR: dataDir, ...stallEnv }), BUILT);
  app = benchClient(server.url, app.appid, app.token);

  // 1. Posts with and without a backup.
  const poster = await PosterProcess.start({ base: server.url, appid: app.appid, token: app.token, roomId: target.roomId, speakers: target.speakers, rate: RATE });
  await new Promise((r) => setTimeout(r, 5000));
  const baseFrom = performance.now();
  const baseWallFrom = Date.now();
  await new Promise((r) => setTimeout(r, BASELINE_S * 1000));
  const baseTo = performance.now();
  const baseWallTo = Date.now();
  const underLoad = join(work, 'under-load.sql.gz');
  const backup = await backupTo(server.url, underLoad);
  const backupTo_ = baseTo + (backup.endedAt - backup.startedAt);
  await new Promise((r) => setTimeout(r, 3000));
  await poster.stop();
  const stalls = await readStalls(server);
  const base = poster.between(baseFrom, baseTo);
  const during = poster.between(baseTo, backupTo_);
  const baseStalls = stallsBetween(stalls, baseWallFrom, baseWallTo);
  const backupStalls = stallsBetween(stalls, backup.startedAt, backup.endedAt);
  console.log(`backup under ${RATE} posts/s: ${seconds(backup.endedAt - backup.startedAt)}, ${(backup.bytes / 1e6).toFixed(1)} MB`);
  console.log(
    `  posts without a backup (${BASELINE_S} s): ${base.count} posts, p50 ${base.p50} ms, p99 ${base.p99} ms, ${base.failed} failed; longest loop stall ${baseStalls.longest} ms (${baseStalls.over50} over 50 ms)`,
  );
  console.log(
    `  posts during the backup: ${during.count} posts, p50 ${during.p50} ms, p99 ${during.p99} ms, ${during.failed} failed; longest loop stall ${backupStalls.longest} ms (${backupStalls.over50} over 50 ms)`,
  );
  console.log(`  p99 during ÷ without: ${(during.p99 / base.p99).toFixed(2)}`);
  const acknowledgedBefore = poster.posts.flatMap((p, i) => (p.answeredAt !== undefined && p.answeredAt < baseTo ? [i + 1] : []));
  const held = await stormPostsIn(underLoad);
  const lost = acknowledgedBefore.filter((n) => !held.has(n));
  console.log(
    `  posts answered before the backup was asked for: ${acknowledgedBefore.length}, in the backup: ${acknowledgedBefore.length - lost.length}, lost: ${lost.length}; posts the backup holds in all: ${held.size}`,
  );

  // 2. A backup of the final state, restored; the directory moved.
  const quiet = join(work, 'final.sql.gz');
  const final = await backupTo(server.url, quiet);
  console.log(`backup at rest: ${seconds(final.endedAt - final.startedAt)}, ${(final.bytes / 1e6).toFixed(1)} MB`);
  await server.stop();
  const restoredDir = join(work, 'restored');
  const restore = await timedCommand('restore', [quiet], { DATABASE_URL: '', DATA_DIR: restoredDir });
  console.log(`restore into an empty DATA_DIR: ${seconds(restore.ms)}, longest wait between progress lines ${seconds(restore.longestSilenceMs)}; ${restore.last}`);
  if (restoredUrl !== undefined) {
    const intoPostgres = await timedCommand('restore', [quiet], { DATABASE_URL: restoredUrl });
    console.log(`restore into an empty PostgreSQL database: ${seconds(intoPostgres.ms)}, longest wait between progress lines ${seconds(intoPostgres.longestSilenceMs)}; ${intoPostgres.last}`);
  }
  if (moved !== undefined) {
    const move = await timedCommand('move', ['--to', moved], { DATABASE_URL: '', DATA_DIR: dataDir });
    console.log(`move of DATA_DIR into an empty PostgreSQL database: ${seconds(move.ms)}, longest wait between progress lines ${seconds(move.longestSilenceMs)}; ${move.last}`);
  }

  // 3. The same pages from the original and each copy.
  server = await spawnServer(serverEnv({ DATA_DIR: dataDir }), BUILT);
  app = benchClient(server.url, app.appid, app.token);
  const head = await app.call<{ cursor: string }>('GET', `chat/rooms/${target.roomId}/updates?limit=1`);
  const lastSeq = (JSON.parse(Buffer.from(head.cursor, 'base64url').toString()) as { u: number }).u;
  const targets: [string, Record<string, string>][] = [['restored DATA_DIR', { DATA_DIR: restoredDir }]];
  if (restoredUrl !== undefined) targets.push(['restored PostgreSQL', { DATABASE_URL: restoredUrl }]);
  if (moved !== undefined) targets.push(['moved PostgreSQL', { DATABASE_URL: moved }]);
  for (const [name, env] of targets) {
    const copy = await spawnServer(serverEnv(env), BUILT);
    copies.push(copy);
    const result = await comparePages(app, benchClient(copy.url, app.appid, app.token), target.roomId, lastSeq);
    console.log(
      `${name}: ${result.compared} updates pages from random cursors (of ${lastSeq} events), ${result.differing} differing from the original's (${(result.bytes / 1e6).toFixed(1)} MB compared)`,
    );
    await copy.stop();
  }
} finally {
  await Promise.all(copies.map((c) => c.stop().catch(() => undefined)));
  await server.stop().catch(() => undefined);
  await dropDatabase(moved);
  await dropDatabase(restoredUrl);
  rmSync(work, { recursive: true, force: true });
}
