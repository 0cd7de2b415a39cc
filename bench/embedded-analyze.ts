/**
 * How long ANALYZE holds the embedded database on the chat events table (src/db/embedded-vacuum.ts
 * analyses a table each time it has doubled; the server answers nothing else meanwhile), apart
 * from the server: per checkout, a fresh PGlite migrated with that checkout's migrations receives
 * ROWS chat events (speech, 20 rooms, 20,000 users, a distinct body each) 500 a statement, and is
 * analysed at each doubling from 16,000 rows, as the server would. Checkouts run in turn, ROUNDS
 * times. Prints the time of each analysis.
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
import { checkoutsFromEnv } from './lib/checkouts.js';

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

/** The milliseconds of each analysis, at each doubling. */
async function analyses(root: string): Promise<number[]> {
  const dir = mkdtempSync(join(tmpdir(), 'analyze-bench-'));
  try {
    await initEmbeddedCluster(dir);
    const db = new PGlite(dir, EMBEDDED_OPTIONS);
    await migrate(drizzle(db), { migrationsFolder: join(root, 'migrations') });
    const times: number[] = [];
    for (let rows = 0, next = FIRST_ANALYSIS; rows < ROWS; rows += PER_STATEMENT) {
      await db.exec(insertFrom(rows));
      if (rows + PER_STATEMENT < next) continue;
      const started = performance.now();
      await db.exec('analyze chat_events');
      times.push(performance.now() - started);
      next *= 2;
    }
    await db.close();
    return times;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const checkouts = checkoutsFromEnv();
console.log(`${ROWS} chat events, ${PER_STATEMENT} a statement; ANALYZE at each doubling from ${FIRST_ANALYSIS}; ${ROUNDS} rounds`);
for (let round = 1; round <= ROUNDS; round++) {
  for (const { name, root } of round % 2 === 1 ? checkouts : [...checkouts].reverse()) {
    const times = await analyses(root);
    const at = times.map((ms, i) => `${(FIRST_ANALYSIS * 2 ** i) / 1000}k rows ${Math.round(ms)} ms`);
    console.log(`round ${round}, ${name.padEnd(8)} ${at.join(', ')}`);
  }
}
