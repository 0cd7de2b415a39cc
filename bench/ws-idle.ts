/**
 * What holding idle sockets costs: SOCKETS subscribed sockets, nothing posted, the CPU each server
 * process uses over IDLE_SECONDS (after a settling pause), for bare uWS (bench/uws-fanout-server.ts)
 * and for our server; whatever a server does on timers shows here, apart from any fan-out.
 *
 *   ulimit -n 65536
 *   SOCKETS=10000 IDLE_SECONDS=20 DATABASE_URL=postgres://... tsx bench/ws-idle.ts
 *
 * With DATABASE_URL (a Postgres where a fresh database is created) our server stores in
 * Postgres, else in embedded PGlite, whose queries then run inside the server process.
 */
import { freshDatabase } from '../test/cluster/infra.js';
import { cpuSeconds } from './lib/cpu.js';
import { SocketPool } from './ws-fanout-clients.js';
import { round } from './ws-fanout-stats.js';
import { bareTarget, engageTarget, type Target } from './ws-fanout-targets.js';

const SOCKETS = Number(process.env['SOCKETS'] ?? 10_000);
const SECONDS = Number(process.env['IDLE_SECONDS'] ?? 20);
const ROUNDS = Number(process.env['ROUNDS'] ?? 3);
const DATABASE_URL = process.env['DATABASE_URL'];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function idleCpuPercent(target: Target): Promise<number> {
  const pool = new SocketPool(target.dialect, target.urls.length);
  await pool.open(target.urls, SOCKETS);
  await sleep(3000);
  const pid = target.pids[0] as number;
  const before = cpuSeconds(pid);
  await sleep(SECONDS * 1000);
  const percent = ((cpuSeconds(pid) - before) / SECONDS) * 100;
  pool.closeAll();
  return round(percent);
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

async function main(): Promise<void> {
  const db = DATABASE_URL !== undefined ? await freshDatabase(DATABASE_URL) : undefined;
  const storage: Record<string, string> = db === undefined ? {} : { DATABASE_URL: db.url };
  const runs: Record<string, number[]> = { bare: [], engage: [] };
  try {
    // Alternating, so that whatever else the machine does falls on both alike.
    for (let i = 0; i < ROUNDS; i++) {
      for (const name of ['bare', 'engage'] as const) {
        const target = name === 'bare' ? await bareTarget() : await engageTarget(1, storage, 10);
        try {
          runs[name]?.push(await idleCpuPercent(target));
        } finally {
          await target.stop();
        }
      }
    }
  } finally {
    await db?.drop();
  }
  process.stdout.write(`ws-idle: ${SOCKETS} idle subscribed sockets, ${SECONDS} s, ${ROUNDS} rounds; ${db === undefined ? 'embedded PGlite' : 'Postgres'}\n\n`);
  process.stdout.write('| server | CPU % of one core, each round | median |\n|---|---|---|\n');
  for (const [name, values] of Object.entries(runs)) process.stdout.write(`| ${name} | ${values.join(', ')} | ${median(values)} |\n`);
}

await main();
