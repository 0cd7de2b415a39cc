import { sql } from 'drizzle-orm';
import { type Db, preparedRows } from './client.js';
import type { Logger } from '../logger.js';
import { repeatWork } from '../repeated-work.js';

/** How often the embedded database's tables are looked at while they change; the wait doubles while none needs work, up to LONGEST_WAIT_MS. */
const FIRST_WAIT_MS = 5_000;
const LONGEST_WAIT_MS = 300_000;
/** A table is first analysed once it holds this many 8 KB pages. */
const FIRST_PAGES = 8;
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
  select c.oid::regclass::text as "table", ${GROWN} as grown, ${DEAD} as dead, ${OLD} as old
  from pg_class c where c.relkind in ('r', 'm', 't') and (${GROWN} or ${DEAD} or ${OLD})`);

interface TableToTend {
  table: string;
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
 * PGlite runs no autovacuum, so the server does its work: the planner's statistics, dead row
 * versions and old transaction ids.
 * - Statistics: without them every table looks empty, and the page of a room's latest events was
 *   read by sorting the room's whole history (2.4 ms a read at 3,000 events, 14 ms at 12,000,
 *   against 0.4 ms once analysed). A table is analysed each time it has doubled, so the work stays
 *   proportional to what was written (ANALYZE samples at most 30,000 rows).
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
  const check = async () => {
    if (!mayWrite()) return;
    const tables = await preparedRows<TableToTend>(db, 'embedded_tables_to_tend', TABLES_TO_TEND);
    for (const table of tables) {
      const started = performance.now();
      await db.execute(sql.raw(workOf(table)));
      log.debug({ ...table, ms: Math.round(performance.now() - started) }, 'embedded table vacuumed');
    }
    wait = tables.length > 0 ? FIRST_WAIT_MS : Math.min(wait * 2, LONGEST_WAIT_MS);
  };
  // The stop waits for a vacuum under way: the database may then close.
  return repeatWork(
    () => wait,
    check,
    (err) => log.warn({ err }, 'vacuuming the embedded database failed'),
  );
}
