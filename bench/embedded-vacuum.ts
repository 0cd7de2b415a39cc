/**
 * What the embedded database's upkeep gains and costs over a match's churn. Per checkout, a server
 * (from source, embedded default, rate limits off) sees ROUNDS rounds of: FANS fans join one room,
 * all like that round's goal, all leave; then they all join again and it idles WAIT_MS (the server looks every 5 s while it
 * works). Once it has stopped, its database is opened and the bench prints each churned table's
 * size, what VACUUM (ANALYZE) and ANALYZE alone cost there, and the look as a named statement.
 *
 *   npm run bench:vacuum                                         # this checkout
 *   CHECKOUTS=before=/tmp/before,after=. npm run bench:vacuum    # e.g. /tmp/before: `git archive` of the commit before, node_modules linked
 *   FANS=3000 ROUNDS=3 CONNECTIONS=32 WAIT_MS=6000
 */
import { PGlite } from '@electric-sql/pglite';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PgDialect } from 'drizzle-orm/pg-core';
import { EMBEDDED_OPTIONS } from '../src/db/embedded.js';
import { TABLES_TO_TEND } from '../src/db/embedded-vacuum.js';
import { pgliteNamedQuery } from '../src/db/pglite-named.js';
import { spawnServer } from '../test/helpers/spawn.js';
import { benchApp, type BenchApp } from './lib/app.js';
import { checkoutsFromEnv } from './lib/checkouts.js';

const fans = Number(process.env['FANS'] ?? 3000);
const rounds = Number(process.env['ROUNDS'] ?? 3);
const connections = Number(process.env['CONNECTIONS'] ?? 32);
const waitMs = Number(process.env['WAIT_MS'] ?? 6000);
const TABLES = ['chat_participants', 'chat_events', 'chat_rooms', 'chat_reactions', 'chat_subscriptions'];

/** Sends every body to `path`, `connections` at a time. */
async function crowd(app: BenchApp, path: string, bodies: unknown[]): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < bodies.length) await app.call('POST', path, bodies[next++]);
  };
  await Promise.all(Array.from({ length: connections }, worker));
}

async function churn(dataDir: string, root: string): Promise<number> {
  const server = await spawnServer({ DATA_DIR: dataDir, DATABASE_URL: '', REDIS_URL: '', RATE_LIMITS: 'off' }, undefined, root);
  const started = performance.now();
  try {
    const app = await benchApp(server.url);
    const room = await app.call<{ id: string }>('POST', 'chat/rooms', { name: 'stadium', enableenterandexit: false });
    await app.call('POST', `chat/rooms/${room.id}/join`, { userid: 'speaker', displayname: 'Speaker' });
    const ids = Array.from({ length: fans }, (_, i) => `fan${i}`);
    for (let r = 0; r < rounds; r++) {
      const goal = await app.call<{ speech: { id: string } }>('POST', `chat/rooms/${room.id}/command`, { userid: 'speaker', command: `GOAL ${r}!` });
      await crowd(
        app,
        `chat/rooms/${room.id}/join`,
        ids.map((userid) => ({ userid, displayname: `Fan ${userid}` })),
      );
      await crowd(
        app,
        `chat/rooms/${room.id}/events/${goal.speech.id}/react`,
        ids.map((userid) => ({ userid, reaction: 'like', reacted: true })),
      );
      await crowd(
        app,
        `chat/rooms/${room.id}/exit`,
        ids.map((userid) => ({ userid })),
      );
    }
    // The crowd back in: its sessions fill the space the last ones left, or new pages.
    await crowd(
      app,
      `chat/rooms/${room.id}/join`,
      ids.map((userid) => ({ userid, displayname: `Fan ${userid}` })),
    );
    const worked = performance.now() - started;
    await new Promise((r) => setTimeout(r, waitMs));
    return worked;
  } finally {
    await server.stop();
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

async function timed(db: PGlite, statement: string): Promise<number> {
  const started = performance.now();
  await db.exec(statement);
  return performance.now() - started;
}

/** The look before the server vacuumed (sizes only), the baseline of its cost. */
const SIZES_ONLY = `select c.oid::regclass::text as "table" from pg_class c
  where c.relnamespace = 'public'::regnamespace and c.relkind = 'r'
    and pg_relation_size(c.oid) / current_setting('block_size')::int >= greatest(2 * c.relpages, 8)`;

/** A look's median time over 200 runs as a named statement, as the server runs it, taking turns with the other. */
async function lookMs(db: PGlite): Promise<{ look: number; sizesOnly: number }> {
  const named = pgliteNamedQuery(db, () => {});
  const look = new PgDialect().sqlToQuery(TABLES_TO_TEND).sql;
  const times = { look: [] as number[], sizesOnly: [] as number[] };
  for (let i = 0; i < 200; i++) {
    for (const [name, text] of [
      ['look', look],
      ['sizesOnly', SIZES_ONLY],
    ] as const) {
      const started = performance.now();
      await named(name, text, []);
      times[name].push(performance.now() - started);
    }
  }
  return { look: median(times.look), sizesOnly: median(times.sizesOnly) };
}

for (const checkout of checkoutsFromEnv()) {
  const dataDir = mkdtempSync(join(tmpdir(), 'engage-bench-vacuum-'));
  try {
    const worked = await churn(dataDir, checkout.root);
    const db = new PGlite(dataDir, EMBEDDED_OPTIONS);
    try {
      process.stdout.write(`\n${checkout.name}: ${rounds} rounds of ${fans} fans joining, liking, leaving, then back in; ${(worked / 1000).toFixed(1)} s of work\n`);
      process.stdout.write(`table                 rows  pages  indexes pages  ANALYZE ms  VACUUM (ANALYZE) ms\n`);
      for (const table of TABLES) {
        const [size] = (
          await db.query<{ n: number; pages: number; indexes: number }>(
            `select (select count(*)::int from ${table}) as n, pg_relation_size($1::regclass) / 8192 as pages, (pg_indexes_size($1::regclass) / 8192)::int as indexes`,
            [table],
          )
        ).rows;
        const analyze = await timed(db, `analyze ${table}`);
        const vacuum = await timed(db, `vacuum (analyze) ${table}`);
        process.stdout.write(
          `${table.padEnd(20)} ${String(size?.n).padStart(5)} ${String(size?.pages).padStart(6)} ${String(size?.indexes).padStart(14)} ${analyze.toFixed(1).padStart(11)} ${vacuum.toFixed(1).padStart(20)}\n`,
        );
      }
      const looks = await lookMs(db);
      process.stdout.write(`the look as a named statement: ${looks.look.toFixed(2)} ms, sizes only ${looks.sizesOnly.toFixed(2)} ms (medians of 200)\n`);
    } finally {
      await db.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
