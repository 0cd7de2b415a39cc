/**
 * The server's resident memory (RSS, from /proc) on the configured database: after start, idle,
 * then at the end of DURATION seconds of chat posting and polling (what bench:chat loads), and
 * idle again. Linux only (reads /proc/<pid>/status). Runs the built server, as production does
 * (built first when stale, as `npm start` does); FROM_SOURCE=1 runs it through tsx.
 *
 *   npx tsx bench/memory.ts                    # embedded database
 *   DURATION=20 DATABASE_URL=postgres://... npx tsx bench/memory.ts
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { initEmbeddedCluster } from '../src/db/embedded.js';
import { load } from './lib/autocannon.js';
import { benchApp } from './lib/app.js';
import { BUILT, FROM_SOURCE, spawnServer } from '../test/helpers/spawn.js';
import { buildServerIfStale } from '../test/helpers/built-server.js';

const duration = Number(process.env['DURATION'] ?? 20);
const out = (line: string) => process.stdout.write(`${line}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Resident and peak resident memory of `pid`, in MB. */
function memory(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN);
  return { rss: Math.round(kb('VmRSS') / 1024), peak: Math.round(kb('VmHWM') / 1024) };
}

if (process.env['FROM_SOURCE'] !== '1') await buildServerIfStale();
// On the embedded default the cluster is created first, as the server itself does (in a child
// process), so that the slow initdb does not count against spawnServer's start deadline.
const dataDir = mkdtempSync(join(tmpdir(), 'engage-memory-'));
if (process.env['DATABASE_URL'] === undefined) await initEmbeddedCluster(dataDir);
// BENCH_ROOT: another checkout of the server (a commit before a change) to measure the same way.
const server = await spawnServer({ LOG_LEVEL: 'warn', DATA_DIR: dataDir }, process.env['FROM_SOURCE'] === '1' ? FROM_SOURCE : BUILT, process.env['BENCH_ROOT']);
try {
  const pid = server.process.pid as number;
  const report = (what: string) => {
    const m = memory(pid);
    out(`${what.padEnd(30)} RSS ${String(m.rss).padStart(4)} MB  peak ${String(m.peak).padStart(4)} MB`);
  };
  out(`database: ${process.env['DATABASE_URL'] === undefined ? 'embedded (PGlite)' : 'postgres'}; load ${duration} s (half posting, half polling)`);
  report('started');
  await sleep(5000);
  report('idle 5 s after start');

  const app = await benchApp(server.url);
  const headers = { 'x-api-token': app.token };
  const room = await app.call<{ id: string }>('POST', 'chat/rooms', { name: 'memory', enableenterandexit: false });
  await app.call('POST', `chat/rooms/${room.id}/join`, { userid: 'bencher', displayname: 'Bench' });
  const body = JSON.stringify({ userid: 'bencher', command: 'hello from the memory bench' });
  const half = Math.max(1, Math.round(duration / 2));
  const posted = await load({ url: app.url(`chat/rooms/${room.id}/command`), method: 'POST', headers, body, connections: 256, durationSeconds: half });
  report(`after ${half} s posting (${posted.requestsPerSec}/s)`);
  const head = (await app.call<{ cursor: string }>('GET', `chat/rooms/${room.id}/updates?limit=1`)).cursor;
  const polled = await load({ url: app.url(`chat/rooms/${room.id}/updates?cursor=${head}`), headers, connections: 64, durationSeconds: half });
  report(`after ${half} s polling (${polled.requestsPerSec}/s)`);
  await sleep(10_000);
  report('idle 10 s after the load');
} finally {
  await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
