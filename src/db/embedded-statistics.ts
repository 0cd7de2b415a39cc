import { sql } from 'drizzle-orm';
import { type Db, preparedRows } from './client.js';
import type { Logger } from '../logger.js';

/** How often the embedded database's table sizes are looked at while tables grow; the wait doubles while none has, up to LONGEST_WAIT_MS. */
const FIRST_WAIT_MS = 5_000;
const LONGEST_WAIT_MS = 300_000;
/** A table is first analysed once it holds this many 8 KB pages. */
const FIRST_PAGES = 8;

/** Our tables that have grown to twice their size at their last analysis (`relpages`, which ANALYZE sets) and to at least FIRST_PAGES. */
const GROWN_TABLES = sql.raw(`
  select c.oid::regclass::text as "table" from pg_class c
  where c.relnamespace = 'public'::regnamespace and c.relkind = 'r'
    and pg_relation_size(c.oid) / current_setting('block_size')::int >= greatest(2 * c.relpages, ${FIRST_PAGES})`);

/**
 * PGlite runs no autovacuum, so without this nothing gathers the planner's statistics: every
 * table looks empty, and the page of a room's latest events was read by sorting the room's whole
 * history (2.4 ms a read at 3,000 events, 14 ms at 12,000, against 0.4 ms once analysed). A table
 * is analysed each time it has doubled, so the work stays proportional to what was written; the
 * database answers nothing else meanwhile (tens of milliseconds for a table of 100,000 rows,
 * since ANALYZE samples at most 30,000). Looking costs a few milliseconds, so an idle server
 * looks less and less often.
 */
export function keepStatistics(db: Db, log: Logger): () => Promise<void> {
  let wait = FIRST_WAIT_MS;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  const check = async () => {
    const grown = await preparedRows<{ table: string }>(db, 'embedded_tables_grown', GROWN_TABLES);
    for (const { table } of grown) {
      const started = performance.now();
      await db.execute(sql.raw(`analyze ${table}`));
      log.debug({ table, ms: Math.round(performance.now() - started) }, 'embedded table analysed');
    }
    wait = grown.length > 0 ? FIRST_WAIT_MS : Math.min(wait * 2, LONGEST_WAIT_MS);
  };
  const schedule = () => {
    timer = setTimeout(() => {
      running = check()
        .catch((err: unknown) => log.warn({ err }, 'analysing the embedded database failed'))
        .finally(() => {
          running = undefined;
          if (timer !== undefined) schedule();
        });
    }, wait);
    timer.unref();
  };
  schedule();
  /** Stops, once an analysis under way has ended (the database may then close). */
  return async () => {
    clearTimeout(timer);
    timer = undefined;
    await running;
  };
}
