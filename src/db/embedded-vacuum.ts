import { performance } from 'node:perf_hooks';
import { sql } from 'drizzle-orm';
import { type Db, preparedRows } from './client.js';
import type { Logger } from '../logger.js';
import { repeatWork } from '../repeated-work.js';

/** How often the embedded database's tables are looked at while they change; the wait doubles while none needs work, up to LONGEST_WAIT_MS. */
const FIRST_WAIT_MS = 5_000;
const LONGEST_WAIT_MS = 300_000;
/** A table is first analysed once it holds this many 8 KB pages. */
const FIRST_PAGES = 8;
/**
 * A table that held at least this many pages (2 MB) at its last analysis waits for a lull to be
 * analysed again: ANALYZE then holds the serving thread 50 ms or more (about 60 ms at 600 pages,
 * 120–210 ms at 1,200–2,900, 335–760 ms at 37,650), while the crowd that doubled the table is
 * usually still there. The first analysis of a table never waits: plans need it most.
 */
export const DEFERRABLE_PAGES = 256;
/** A lull: the serving thread was busy less than this share of the time since the last look. */
export const LULL_UTILIZATION = 0.5;
/** The longest such an analysis waits for a lull. */
export const LONGEST_DEFERRAL_MS = 600_000;
/** Autovacuum's defaults: a table is vacuumed once it holds more dead row versions than 50 + 20% of its rows… */
const DEAD_ROWS = 50;
const DEAD_SHARE = 0.2;
/** …and frozen once its oldest unfrozen transaction id is this many transactions old (autovacuum_freeze_max_age). */
export const FREEZE_AGE = 200_000_000;

const OURS = `c.relnamespace = 'public'::regnamespace and c.relkind = 'r'`;
/** Our tables at twice their pages at their last analysis or vacuum (which set `relpages`), and at least FIRST_PAGES. */
const GROWN = `${OURS} and pg_relation_size(c.oid) / current_setting('block_size')::int >= greatest(2 * c.relpages, ${FIRST_PAGES})`;
/** Our tables holding more dead row versions than autovacuum allows. The counts live in memory: a restart forgets them, and GROWN catches such a table later. */
const DEAD = `${OURS} and pg_stat_get_dead_tuples(c.oid) > ${DEAD_ROWS} + ${DEAD_SHARE} * greatest(c.reltuples, 0)`;
/** Any table of the database, catalogs and TOAST included, whose oldest unfrozen transaction id is older than FREEZE_AGE. */
const OLD = `age(c.relfrozenxid) > ${FREEZE_AGE}`;
/** The tables that need work, and which. The conditions are written twice so that a table's name is only made for the rows returned (a sixth of the look's time otherwise). */
export const TABLES_TO_TEND = sql.raw(`
  select c.oid::regclass::text as "table", c.relpages as pages, ${GROWN} as grown, ${DEAD} as dead, ${OLD} as old
  from pg_class c where c.relkind in ('r', 'm', 't') and (${GROWN} or ${DEAD} or ${OLD})`);

export interface TableToTend {
  table: string;
  /** Its pages at its last analysis or vacuum. */
  pages: number;
  grown: boolean;
  dead: boolean;
  old: boolean;
}

/** The work a table needs: one that only grew is analysed; one with dead rows is vacuumed (and analysed if it grew too), an old one frozen. */
function workOf({ table, grown, dead, old }: TableToTend): string {
  if (!dead && !old) return `analyze ${table}`;
  const options = [...(grown ? ['analyze'] : []), ...(old ? ['freeze'] : [])];
  return options.length === 0 ? `vacuum ${table}` : `vacuum (${options.join(', ')}) ${table}`;
}

/**
 * Whether a table's work waits for a lull: an analysis alone (no dead rows, nothing to freeze) of
 * a table that had DEFERRABLE_PAGES or more at its last, while the serving thread was busy at
 * least LULL_UTILIZATION of the time since the last look (`busy`), for at most
 * LONGEST_DEFERRAL_MS (`waitedMs`, since the analysis was first found due). Its statistics
 * meanwhile describe a table half its size; the planner scales their row counts by the table's
 * pages as they are.
 */
export function waitsForLull(table: TableToTend, busy: number, waitedMs: number): boolean {
  return !table.dead && !table.old && table.pages >= DEFERRABLE_PAGES && busy >= LULL_UTILIZATION && waitedMs < LONGEST_DEFERRAL_MS;
}

/**
 * PGlite runs no autovacuum, so the server does its work: the planner's statistics, dead row
 * versions and old transaction ids.
 * - Statistics: without them every table looks empty, and the page of a room's latest events was
 *   read by sorting the room's whole history (2.4 ms a read at 3,000 events, 14 ms at 12,000,
 *   against 0.4 ms once analysed). A table is analysed each time it has doubled, so the work stays
 *   proportional to what was written (ANALYZE samples at most 30,000 rows). A large table's
 *   analysis waits for a lull (waitsForLull), so that a crowd's burst does not stall on it.
 * - Dead row versions (updates in place, deletes): until a vacuum they hold their space, so a
 *   table updated in place grows for ever. A table is vacuumed past autovacuum's threshold. One
 *   that only grew is not: the work runs on the serving thread, and VACUUM reads every page a
 *   crowd's inserts wrote where ANALYZE samples them.
 * - Transaction ids wrap around after 2^31: a row whose id was not frozen before then would seem
 *   written in the future and vanish. A single-user Postgres (PGlite is one) does not stop
 *   writing before that as a server would, so a table is frozen once its oldest unfrozen id is
 *   FREEZE_AGE old, as autovacuum does.
 * The database answers nothing else while it works. Looking costs a millisecond or two, so an
 * idle server looks less and less often. `mayWrite` false (the disk short of space) skips the work.
 */
export function keepVacuumed(db: Db, log: Logger, mayWrite: () => boolean = () => true): () => Promise<void> {
  let wait = FIRST_WAIT_MS;
  let load = performance.eventLoopUtilization();
  /** Since when each table whose analysis waits for a lull has waited (performance.now()). */
  let waiting = new Map<string, number>();
  const check = async () => {
    if (!mayWrite()) return;
    const current = performance.eventLoopUtilization();
    const busy = performance.eventLoopUtilization(current, load).utilization;
    load = current;
    const tables = await preparedRows<TableToTend>(db, 'embedded_tables_to_tend', TABLES_TO_TEND);
    const now = performance.now();
    const stillWaiting = new Map<string, number>();
    for (const table of tables) {
      const since = waiting.get(table.table) ?? now;
      if (waitsForLull(table, busy, now - since)) {
        if (!waiting.has(table.table)) log.debug({ table: table.table, pages: table.pages, busy }, 'embedded table analysis waits for a lull');
        stillWaiting.set(table.table, since);
        continue;
      }
      const started = performance.now();
      await db.execute(sql.raw(workOf(table)));
      log.debug({ ...table, ms: Math.round(performance.now() - started) }, 'embedded table vacuumed');
    }
    waiting = stillWaiting;
    wait = tables.length > 0 ? FIRST_WAIT_MS : Math.min(wait * 2, LONGEST_WAIT_MS);
  };
  // The stop waits for a vacuum under way: the database may then close.
  return repeatWork(
    () => wait,
    check,
    (err) => log.warn({ err }, 'vacuuming the embedded database failed'),
  );
}
