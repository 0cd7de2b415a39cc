/**
 * What the embedded database's checkpoints (src/db/embedded-checkpoints.ts) cost its writes, apart
 * from the server: ROWS chat-like rows (a 250-byte body, two indexes beside the key) inserted 50
 * a statement into PGlite, with a CHECKPOINT each time CHECKPOINT_WAL_BYTES of WAL were written
 * since the last (as the server does) and without, in turn, ROUNDS times each. Prints the time,
 * the WAL written (full-page images follow each checkpoint) and the time spent in the checkpoints.
 *
 *   npm run bench:checkpoints
 *   ROWS=1000000 ROUNDS=2
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { CHECKPOINT_WAL_BYTES } from '../src/db/embedded-checkpoints.js';
import { EMBEDDED_OPTIONS, initEmbeddedCluster } from '../src/db/embedded.js';

const ROWS = Number(process.env['ROWS'] ?? 1_000_000);
const ROUNDS = Number(process.env['ROUNDS'] ?? 2);
const PER_STATEMENT = 50;
/** How often (in rows) the WAL since the last checkpoint is looked at: about the server's once a second at this rate. */
const LOOK_EVERY = 2_000;

interface Run {
  ms: number;
  walBytes: number;
  checkpoints: number;
  checkpointMs: number;
  longestMs: number;
}

async function insertAll(checkpoints: boolean): Promise<Run> {
  const dir = mkdtempSync(join(tmpdir(), 'checkpoints-bench-'));
  try {
    await initEmbeddedCluster(dir);
    const db = new PGlite(dir, EMBEDDED_OPTIONS);
    await db.exec('create table t (id bigserial primary key, room text, seq bigint, body text, ts bigint); create index on t (room, seq); create index on t (room, ts)');
    const walAt = async () => (await db.query<{ lsn: string }>('select pg_current_wal_insert_lsn()::text as lsn')).rows[0]?.lsn as string;
    const sinceCheckpoint = async () =>
      (await db.query<{ bytes: number }>('select pg_wal_lsn_diff(pg_current_wal_insert_lsn(), redo_lsn)::float8 as bytes from pg_control_checkpoint()')).rows[0]?.bytes as number;
    const from = await walAt();
    const run: Run = { ms: 0, walBytes: 0, checkpoints: 0, checkpointMs: 0, longestMs: 0 };
    const started = performance.now();
    for (let i = 0; i < ROWS; i += PER_STATEMENT) {
      await db.query(
        `insert into t (room, seq, body, ts) select 'r' || (g % 20), $1::bigint + g, 'fan message ' || md5(g::text) || repeat('x', 200), $1::bigint from generate_series(1, ${PER_STATEMENT}) g`,
        [i],
      );
      if (!checkpoints || i % LOOK_EVERY !== 0 || (await sinceCheckpoint()) < CHECKPOINT_WAL_BYTES) continue;
      const at = performance.now();
      await db.exec('checkpoint');
      const ms = performance.now() - at;
      run.checkpoints++;
      run.checkpointMs += ms;
      run.longestMs = Math.max(run.longestMs, ms);
    }
    run.ms = performance.now() - started;
    run.walBytes = (await db.query<{ bytes: number }>('select pg_wal_lsn_diff(pg_current_wal_insert_lsn(), $1::pg_lsn)::float8 as bytes', [from])).rows[0]?.bytes as number;
    await db.close();
    return run;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

console.log(`${ROWS} rows, ${PER_STATEMENT} a statement, a checkpoint per ${CHECKPOINT_WAL_BYTES / 2 ** 20} MB of WAL or none; ${ROUNDS} rounds`);
for (let round = 1; round <= ROUNDS; round++) {
  for (const checkpoints of [false, true]) {
    const r = await insertAll(checkpoints);
    console.log(
      `round ${round}, ${checkpoints ? 'checkpoints' : 'none       '}: ${Math.round(r.ms)} ms (${Math.round((ROWS / r.ms) * 1000)} rows/s), WAL ${(r.walBytes / 2 ** 20).toFixed(0)} MB (${(r.walBytes / ROWS).toFixed(0)} B/row)` +
        (checkpoints
          ? `, ${r.checkpoints} checkpoints: ${Math.round(r.checkpointMs)} ms in all (${((100 * r.checkpointMs) / r.ms).toFixed(1)}% of the time), the longest ${Math.round(r.longestMs)} ms`
          : ''),
    );
  }
}
