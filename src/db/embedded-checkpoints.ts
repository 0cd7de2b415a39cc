import { sql } from 'drizzle-orm';
import type { Logger } from '../logger.js';
import { repeatWork } from '../repeated-work.js';
import { type Db, preparedRows } from './client.js';

/** How often the WAL written since the last checkpoint is looked at (a read of a few microseconds). */
const LOOK_MS = 1_000;
/** A checkpoint once this much WAL was written since the last one: what a crash leaves to replay (about a second's work). */
export const CHECKPOINT_WAL_BYTES = 64 * 1024 * 1024;
/** …or once this long has passed since the last one with any WAL written, as Postgres' checkpoint_timeout. */
const CHECKPOINT_EVERY_MS = 300_000;

const WAL_SINCE_CHECKPOINT = sql.raw(`select pg_wal_lsn_diff(pg_current_wal_insert_lsn(), redo_lsn)::float8 as bytes from pg_control_checkpoint()`);

/**
 * PGlite is Postgres in single-user mode: it has no checkpointer, and its own WAL never triggers
 * a checkpoint (that request goes to a checkpointer process that does not exist). Left alone it
 * checkpoints only when it closes, so every byte of WAL since the start is kept on disk and a
 * crash replays all of it: 18.7 s after a kill -9 with a million events, and a disk filling
 * with WAL for as long as the server runs. The server does the checkpointer's work: a
 * CHECKPOINT once CHECKPOINT_WAL_BYTES of WAL were written since the last, or after
 * CHECKPOINT_EVERY_MS with any. A checkpoint writes the buffers changed since the last one (at
 * most shared_buffers) and lets Postgres recycle the WAL before it (max_wal_size bounds what it
 * keeps, see EMBEDDED_OPTIONS). The database answers nothing else meanwhile. `mayWrite` false
 * (the disk short of space) postpones it: a checkpoint writes.
 */
export function keepCheckpointed(db: Db, log: Logger, mayWrite: () => boolean = () => true): () => Promise<void> {
  let last = performance.now();
  const look = async () => {
    const [wal] = await preparedRows<{ bytes: number }>(db, 'embedded_wal_since_checkpoint', WAL_SINCE_CHECKPOINT);
    const bytes = wal?.bytes ?? 0;
    const due = bytes >= CHECKPOINT_WAL_BYTES || (bytes > 0 && performance.now() - last >= CHECKPOINT_EVERY_MS);
    if (!due || !mayWrite()) return;
    const started = performance.now();
    await db.execute(sql`checkpoint`);
    last = performance.now();
    log.debug({ walBytes: bytes, ms: Math.round(last - started) }, 'embedded database checkpointed');
  };
  // The stop waits for a checkpoint under way: the database may then close, with a checkpoint of its own.
  return repeatWork(
    () => LOOK_MS,
    look,
    (err) => log.warn({ err }, 'checkpointing the embedded database failed'),
  );
}
