import { sql, TransactionRollbackError } from 'drizzle-orm';
import type { Db } from './client.js';

/** Pages the probe writes (8 KB each): 4 MB must fit before writes resume. */
const PROBE_PAGES = 512;

/**
 * A write that needs fresh disk space on Postgres, where this process cannot see the disk: a
 * temporary table of PROBE_PAGES pages, one row each, stored uncompressed. Postgres takes a new
 * page's space on disk as it adds it (zeroes written, or reserved), so the insert fails with
 * SQLSTATE 53100 on a full disk. The transaction is rolled back, which removes the table and
 * its file: nothing is left behind.
 */
export async function probePostgresSpace(db: Db): Promise<void> {
  try {
    await db.transaction(async (tx) => {
      await tx.execute(sql.raw('create temporary table engage_space_probe (filler text) on commit drop'));
      await tx.execute(sql.raw('alter table engage_space_probe alter column filler set storage plain'));
      await tx.execute(sql.raw(`insert into engage_space_probe select rpad('', 7900, 'x') from generate_series(1, ${PROBE_PAGES})`));
      tx.rollback();
    });
  } catch (err) {
    if (!(err instanceof TransactionRollbackError)) throw err;
  }
}
