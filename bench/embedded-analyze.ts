/**
 * How long ANALYZE holds the embedded database on the chat events table (src/db/embedded-vacuum.ts
 * analyses a table each time it has doubled; the server answers nothing else meanwhile), apart
 * from the server: per checkout, a fresh PGlite migrated with that checkout's migrations receives
 * ROWS chat events (speech, 20 rooms, 20,000 users, a distinct body each) 500 a statement, and is
 * analysed at each doubling from 16,000 rows (the server analyses a table each time its pages have
 * doubled). Checkouts run in turn, ROUNDS times. Prints the time of each analysis.
 *
 *   npm run bench:analyze
 *   CHECKOUTS=before=/tmp/before,after=. ROWS=256000 ROUNDS=3 npm run bench:analyze
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { drizzle } from 'drizzle-orm/pglite';
import { migrate } from 'drizzle-orm/pglite/migrator';
import { EMBEDDED_OPTIONS, initEmbeddedCluster } from '../src/db/embedded.js';
import { checkoutsFromEnv, turnOrder } from './lib/checkouts.js';

const ROWS = Number(process.env['ROWS'] ?? 256_000);
const ROUNDS = Number(process.env['ROUNDS'] ?? 3);
const PER_STATEMENT = 500;
const FIRST_ANALYSIS = 16_000;

/** PER_STATEMENT chat events, numbered from `from`. */
function insertFrom(from: number): string {
  return `insert into chat_events (id, app_id, room_id, seq, event_type, user_id, body, original_body, custom_tags, hierarchy, hashtags, reactions, reports, muted_by, ts, added, when_modified)
    select 'e' || lpad((${from} + g)::text, 12, '0'), 'app', 'room' || (g % 20), ${from} + g, 'speech', 'fan' || ((g * 7919) % 20000),
      'fan message ' || md5(g::text), 'fan message ' || md5(g::text), '[]', '[]', '[]', '[]', '[]', '[]', 1700000000000 + ${from} + g, now(), now()
    from generate_series(1, ${PER_STATEMENT}) g`;
}

/** Each analysis: the rows the table held, and its milliseconds. */
async function analyses(root: string): Promise<{ rows: number; ms: number }[]> {
  const dir = mkdtempSync(join(tmpdir(), 'analyze-bench-'));
  try {
    await initEmbeddedCluster(dir);
    const db = new PGlite(dir, EMBEDDED_OPTIONS);
    await migrate(drizzle(db), { migrationsFolder: join(root, 'migrations') });
    const done: { rows: number; ms: number }[] = [];
    for (let rows = 0, next = FIRST_ANALYSIS; rows < ROWS; ) {
      await db.exec(insertFrom(rows));
      rows += PER_STATEMENT;
      if (rows < next) continue;
      const started = performance.now();
      await db.exec('analyze chat_events');
      done.push({ rows, ms: performance.now() - started });
      next *= 2;
    }
    await db.close();
    return done;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const checkouts = checkoutsFromEnv();
console.log(`${ROWS} chat events, ${PER_STATEMENT} a statement; ANALYZE at each doubling from ${FIRST_ANALYSIS}; ${ROUNDS} rounds`);
for (let round = 0; round < ROUNDS; round++) {
  for (const { name, root } of turnOrder(checkouts, round)) {
    const at = (await analyses(root)).map(({ rows, ms }) => `${rows / 1000}k rows ${Math.round(ms)} ms`);
    console.log(`round ${round + 1}, ${name.padEnd(8)} ${at.join(', ')}`);
  }
}
