/**
 * Restarts and disk at scale, on the embedded default: a store grown to HISTORY events in one
 * room, ROOMS rooms and USERS users (bench/lib/grow-store.ts, straight into the database while
 * the server is stopped), then, with the built server and rate limits off:
 *   - a start after a clean stop, to /readyz 200;
 *   - POSTS posts at full load (the writes a crash interrupts; their rate is what the checkpoints cost);
 *   - kill -9, and the time from spawning the server again to /readyz 200;
 *   - SIGTERM (no drain): the time to exit, and from spawning again to /readyz 200;
 *   - after a last clean stop, the data directory's bytes per stored event: all of it (but the
 *     storage reserve's file), the events' table with its TOAST and its indexes, the WAL kept.
 * Each checkout is measured in turn, each on a store of its own (its own schema and grow-store).
 *
 *   npm run bench:restart
 *   CHECKOUTS=before=/path/to/checkout,after=. npm run bench:restart
 *   HISTORY=1000000 ROOMS=20000 USERS=100000 POSTS=100000 CONNECTIONS=64
 */
import { execFile, execSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PGlite } from '@electric-sql/pglite';
import { EMBEDDED_OPTIONS, initEmbeddedCluster } from '../src/db/embedded.js';
import { RESERVE_FILE } from '../src/db/reserve-file.js';
import { spawnServer, type SpawnedServer } from '../test/helpers/spawn.js';
import { benchApp, benchClient } from './lib/app.js';
import { load } from './lib/autocannon.js';
import { checkoutsFromEnv } from './lib/checkouts.js';
import { type GrowTarget, growTarget, type StoreSize } from './lib/grow-store.js';

const SIZE: StoreSize = { history: Number(process.env['HISTORY'] ?? 1_000_000), rooms: Number(process.env['ROOMS'] ?? 20_000), users: Number(process.env['USERS'] ?? 100_000) };
const posts = Number(process.env['POSTS'] ?? 100_000);
const connections = Number(process.env['CONNECTIONS'] ?? 64);
/** The production default reserve (the test helper's default is 1 MB); its file is not counted as the store's. */
const SERVER_ENV = { RATE_LIMITS: 'off', STORAGE_RESERVE: '64mb' };

interface Figures {
  startMs: number;
  postsPerSec: number;
  postsFailed: number;
  killRestartMs: number;
  stopMs: number;
  termRestartMs: number;
  events: number;
  dirBytes: number;
  walBytes: number;
  eventsTableBytes: number;
  eventsIndexBytes: number;
}

const bytesOf = (path: string) => Number(execSync(`du -sb ${path}`).toString().split('\t')[0]);

/** Milliseconds from spawning the server on `dataDir` to its first /readyz 200. */
async function startTimed(dataDir: string, root: string): Promise<{ server: SpawnedServer; ms: number }> {
  const started = performance.now();
  const server = await spawnServer({ ...SERVER_ENV, DATA_DIR: dataDir }, undefined, root);
  for (;;) {
    const res = await fetch(`${server.url}/readyz`).catch(() => undefined);
    if (res?.ok) return { server, ms: performance.now() - started };
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** What a cleanly stopped store holds on disk. */
async function diskOf(dataDir: string): Promise<Pick<Figures, 'events' | 'dirBytes' | 'walBytes' | 'eventsTableBytes' | 'eventsIndexBytes'>> {
  // Before the database is opened here: its own close would checkpoint and recycle the WAL otherwise.
  const reserve = join(dataDir, RESERVE_FILE);
  const dirBytes = bytesOf(dataDir) - (existsSync(reserve) ? statSync(reserve).size : 0);
  const walBytes = bytesOf(join(dataDir, 'pg_wal'));
  const db = new PGlite(dataDir, EMBEDDED_OPTIONS);
  try {
    const { rows } = await db.query<{ events: number; table: number; indexes: number }>(
      `select (select count(*) from chat_events)::int as events, pg_table_size('chat_events')::float8 as table, pg_indexes_size('chat_events')::float8 as indexes`,
    );
    const r = rows[0] as { events: number; table: number; indexes: number };
    return { events: r.events, dirBytes, walBytes, eventsTableBytes: r.table, eventsIndexBytes: r.indexes };
  } finally {
    await db.close();
  }
}

async function measure(name: string, root: string): Promise<Figures> {
  await promisify(execFile)(process.execPath, ['scripts/build-if-stale.mjs'], { cwd: root });
  const { growStore } = (await import(join(root, 'bench/lib/grow-store.ts'))) as { growStore: (where: { dataDir: string; databaseUrl: undefined }, t: GrowTarget, size: StoreSize) => Promise<void> };
  const dataDir = mkdtempSync(join(tmpdir(), `restart-${name}-`));
  let server: SpawnedServer | undefined;
  try {
    await initEmbeddedCluster(dataDir);
    server = await spawnServer({ ...SERVER_ENV, DATA_DIR: dataDir }, undefined, root);
    const made = await benchApp(server.url);
    const target = await growTarget(made, 'restart');
    await server.stop();
    const growing = performance.now();
    await growStore({ dataDir, databaseUrl: undefined }, target, SIZE);
    console.log(`${name}: grew ${SIZE.history} events in ${((performance.now() - growing) / 1000).toFixed(0)} s`);

    let started = await startTimed(dataDir, root);
    server = started.server;
    const startMs = started.ms;
    const app = benchClient(server.url, made.appid, made.token);
    const loaded = await load({
      url: app.url(`chat/rooms/${target.roomId}/command`),
      method: 'POST',
      headers: { 'x-api-token': app.token },
      bodies: target.speakers.map((userid, i) => JSON.stringify({ userid, command: `restart bench post ${i}` })),
      connections,
      amount: posts,
      durationSeconds: 600,
    });

    await server.kill('SIGKILL');
    started = await startTimed(dataDir, root);
    server = started.server;
    const killRestartMs = started.ms;

    const stopping = performance.now();
    await server.kill('SIGTERM');
    const stopMs = performance.now() - stopping;
    started = await startTimed(dataDir, root);
    server = started.server;
    const termRestartMs = started.ms;
    await server.stop();
    server = undefined;

    const figures = { startMs, postsPerSec: loaded.requestsPerSec, postsFailed: loaded.non2xx + loaded.errors, killRestartMs, stopMs, termRestartMs, ...(await diskOf(dataDir)) };
    console.log(`${name}: ${JSON.stringify(figures)}`);
    return figures;
  } finally {
    await server?.stop().catch(() => undefined);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const checkouts = checkoutsFromEnv();
console.log(`restart and disk on the embedded default: ${JSON.stringify(SIZE)}, then ${posts} posts over ${connections} connections; checkouts ${checkouts.map((c) => c.name).join(', ')}`);
const results = new Map<string, Figures>();
for (const { name, root } of checkouts) results.set(name, await measure(name, root));

const kb = (bytes: number, events: number) => (bytes / events / 1024).toFixed(2);
const ms = (x: number) => Math.round(x);
console.table(
  Object.fromEntries(
    [...results].map(([name, f]) => [
      name,
      {
        'start (ms to /readyz)': ms(f.startMs),
        'posts/s': f.postsPerSec,
        'posts failed': f.postsFailed,
        'kill -9 → /readyz (ms)': ms(f.killRestartMs),
        'SIGTERM → exit (ms)': ms(f.stopMs),
        'SIGTERM → /readyz (ms)': ms(f.termRestartMs),
        events: f.events,
        'KB/event (directory)': kb(f.dirBytes, f.events),
        'KB/event (events table)': kb(f.eventsTableBytes, f.events),
        'KB/event (events indexes)': kb(f.eventsIndexBytes, f.events),
        'KB/event (WAL kept)': kb(f.walBytes, f.events),
        'WAL kept (MB)': (f.walBytes / 2 ** 20).toFixed(0),
      },
    ]),
  ),
);
