import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { fillPlaceholders, sql, type SQL } from 'drizzle-orm';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import { PgDialect, type PgDatabase, type PgQueryResultHKT } from 'drizzle-orm/pg-core';
import pg from 'pg';
import type { Logger } from '../logger.js';
import { embeddedSharedBuffers } from '../metrics/registry.js';
import { hearCommits } from './commit-notices.js';
import { remakeUnlessFull } from './errors.js';
import { CommitVersions, commitTriggers, noCommitTriggers, SERVER_CONNECTIONS, watchCommits } from './commit-versions.js';
import { lockDataDir } from './data-dir-lock.js';
import { embeddedOptions, initEmbeddedCluster } from './embedded.js';
import { type CopyTimes, copyEmbeddedOnline, prepareOnlineCopies } from './embedded-snapshot.js';
import { keepVacuumed } from './embedded-vacuum.js';
import { keepCheckpointed } from './embedded-checkpoints.js';
import { abortWatch } from './embedded-aborts.js';
import { probeDirSpace } from './free-space.js';
import { ReserveFile } from './reserve-file.js';
import { probePostgresSpace } from './space-probe.js';
import { StorageGuard } from './storage-guard.js';
import { pgliteNamedQuery, type NamedQuery } from './pglite-named.js';
import { sharesServerConnections, StatementNaming } from './transaction-pooler.js';

/** The one database type every store uses: node-postgres and PGlite both satisfy it. */
export type Db = PgDatabase<PgQueryResultHKT>;
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];
/** Anything a query can run on: the database or an open transaction. */
export type Queryable = Db | Tx;

/** What sits between the server and Postgres: nothing (or a session pooler), or a transaction pooler. */
export type Pooler = 'none' | 'transaction';

export interface Database {
  db: Db;
  kind: 'postgres' | 'embedded';
  /** The connection pool, on Postgres (for its metrics). */
  pool?: pg.Pool;
  /** What sits in front of Postgres, as set or as found at start (DATABASE_POOLER may have been forgotten). */
  pooler: Pooler;
  /** Versions of rooms as their commits were heard, where this process is the only writer (embedded, or a single node on Postgres). */
  commits?: CommitVersions;
  /** Embedded: copies the data directory, consistent, into an empty directory while serving (see embedded-snapshot.ts). */
  copyOnline?(into: string): Promise<CopyTimes>;
  /** Whether the database's disk has room for writes (see StorageGuard). */
  storage: StorageGuard;
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

/** The schema's migrations, applied in order at start (and by a restore, see src/backup/). */
export const MIGRATIONS_FOLDER = fileURLToPath(new URL('../../migrations', import.meta.url));
const CONNECT_TIMEOUT_MS = 10_000;
/** Any constant works: it only has to be the same on every node migrating the same database. */
const MIGRATION_LOCK = 7_274_001;

/** Rows of a raw SQL statement, the same on both drivers. */
export async function rows<T>(q: Queryable, statement: SQL): Promise<T[]> {
  const result = (await q.execute(statement)) as unknown as { rows: T[] };
  return result.rows;
}

/** How many rows a `delete … returning 1` removed, counted in the database rather than shipped. */
export async function deletedCount(q: Queryable, deletion: SQL): Promise<number> {
  const [found] = await rows<{ n: number }>(q, sql`with gone as (${deletion}) select count(*)::int as n from gone`);
  return found?.n ?? 0;
}

/** Per database, how it runs a named statement (see `preparedRows`). */
const namedQueries = new WeakMap<Queryable, NamedQuery>();
const dialect = new PgDialect();

/**
 * Rows of a hot statement whose text never changes, run as a named prepared statement: Postgres
 * parses it once per connection and, once it judges a generic plan no worse, stops planning it
 * (a chat append spent about a third of its database time planning; on PGlite, two thirds of its
 * CPU, see pglite-named.ts). Rows come back as the driver parses them by default, without
 * drizzle's type handling, so a timestamp column may come back otherwise than from `rows`. Inside
 * a transaction it runs as `rows` does. Behind a transaction pooler (DATABASE_POOLER=transaction,
 * or found) the connections drop the name and run it unnamed (see transaction-pooler.ts).
 */
export async function preparedRows<T>(q: Queryable, name: string, statement: SQL): Promise<T[]> {
  const named = namedQueries.get(q);
  if (named === undefined) return rows<T>(q, statement);
  const { sql: text, params } = dialect.sqlToQuery(statement);
  return (await named(name, text, params)).rows as T[];
}

/**
 * `preparedRows` for a statement already written with numbered parameters ($1, $2, …), its text
 * made once: drizzle's walk over a statement of hundreds of parameters costs more than running it.
 */
export async function preparedText<T>(q: Queryable, name: string, text: string, params: unknown[]): Promise<T[]> {
  const named = namedQueries.get(q);
  if (named === undefined) return rows<T>(q, numbered(text, params));
  return (await named(name, text, params)).rows as T[];
}

/**
 * A named statement written with drizzle, its values `sql.placeholder`s: the text is made once
 * here, and each call only fills the placeholders in (`values` by name, as the driver takes them).
 * Drizzle's walk over a statement with a table's select list cost a join's page read 0.3 ms a call.
 */
export function statementOnce<T>(name: string, statement: SQL): (q: Queryable, values: Record<string, unknown>) => Promise<T[]> {
  const { sql: text, params } = dialect.sqlToQuery(statement);
  return (q, values) => preparedText<T>(q, name, text, fillPlaceholders(params, values));
}

/** The same statement as drizzle SQL, for `rows`: `$n` stands for `params[n - 1]`. */
function numbered(text: string, params: readonly unknown[]): SQL {
  const parts = text.split(/\$(\d+)/);
  return sql.join(parts.map((part, i) => (i % 2 === 0 ? sql.raw(part) : sql`${params[Number(part) - 1]}`)));
}

export interface OpenOptions {
  databaseUrl: string | undefined;
  pooler: Pooler;
  /** At most this many connections to Postgres. */
  poolSize: number;
  dataDir: string;
  /** EMBEDDED_SHARED_BUFFERS: bytes of the embedded database's shared buffers. */
  sharedBuffers: number;
  /** STORAGE_RESERVE (see StorageGuard, ReserveFile); 0 for a command-line tool, which holds none. */
  storageReserve: number;
  log: Logger;
  /**
   * Postgres: true when this node is its only server (no bus between nodes), so it hears its
   * commits (CommitVersions); false on a cluster, where the triggers that tell them are removed.
   * Omitted (a command-line tool), the triggers are left as they are.
   */
  singleNode?: boolean;
}

export async function openDatabase(options: OpenOptions): Promise<Database> {
  return options.databaseUrl === undefined ? openEmbedded(options) : openPostgres(options.databaseUrl, options);
}

async function openPostgres(url: string, options: OpenOptions): Promise<Database> {
  const { log } = options;
  let pooler = options.pooler;
  if (pooler === 'none' && (await sharesServerConnections(url, CONNECT_TIMEOUT_MS))) {
    pooler = 'transaction';
    log.error('DATABASE_URL leads to a transaction pooler (two client connections met the same server connection): statements run unnamed. Set DATABASE_POOLER=transaction');
  }
  // Notifications do not pass a transaction pooler.
  const hears = options.singleNode === true && pooler === 'none';
  const commits = hears ? new CommitVersions() : undefined;
  const { db, pool } = connectPostgres(url, log, { max: Math.max(options.poolSize, 2), name: SERVER_CONNECTIONS, pooler, commits });
  await migrateAlone(pool, options.singleNode === undefined ? undefined : hears ? commitTriggers() : noCommitTriggers(), log);
  log.info({ pooler, poolSize: options.poolSize, hearsCommits: hears }, 'postgres ready, migrations applied');
  const storage = new StorageGuard({ log, reserveBytes: options.storageReserve, probe: () => probePostgresSpace(db) });
  await storage.start();
  return { db, kind: 'postgres', pool, pooler, commits, storage, ping: () => ping(db), close: () => storage.stop().then(() => pool.end()) };
}

/**
 * Several nodes may start together: one migrates at a time (and then runs `thenRun`, DDL of its
 * own). The lock is held by a transaction kept open on a connection of its own while another runs
 * the migrations, so it never outlives a transaction (a session lock taken and released by two
 * statements could, behind a transaction pooler, be released on another server connection than
 * the one holding it, and never be).
 */
async function migrateAlone(pool: pg.Pool, thenRun: string | undefined, log: Logger): Promise<void> {
  const holder = await pool.connect();
  let broken: Error | undefined;
  try {
    await holder.query('begin');
    await holder.query('select pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    const migrator = await pool.connect();
    try {
      await migratePg(drizzlePg(migrator), { migrationsFolder: MIGRATIONS_FOLDER });
      if (thenRun !== undefined) await remakeUnlessFull(migrator.query(thenRun), log, 'the commit triggers');
    } finally {
      migrator.release();
    }
  } catch (err) {
    broken = err as Error;
    throw err;
  } finally {
    await holder.query('commit').catch(() => undefined);
    holder.release(broken);
  }
}

/**
 * A pool of at most `max` connections to an already migrated database, with named statements for
 * `preparedRows`. `name` is the connections' application_name, as pg_stat_activity shows it. With
 * `commits`, every connection tells it what it changes (see hearCommits).
 */
export function connectPostgres(url: string, log: Logger, options: { max: number; name: string; pooler: Pooler; commits?: CommitVersions }): { db: Db; pool: pg.Pool } {
  // Without a connect timeout, a database out of reach (not refusing, just silent) holds requests forever.
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max,
    application_name: options.name,
    // One stays open to hear other clients' commits while the node is idle.
    ...(options.commits === undefined ? {} : { min: 1 }),
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    Client: new StatementNaming(options.pooler, log).clientClass(),
  });
  // The pool replaces the connection; a request that needs it meanwhile is answered 503.
  pool.on('error', (err) => log.warn({ err }, 'idle postgres connection lost'));
  // The pool listens for errors only while a connection is idle. One lost while checked out
  // between two statements (a transaction doing its work, a primary killed in a failover) would
  // otherwise be an unhandled 'error' event and end the process; its next statement fails
  // instead (answered 503) and the pool drops it on release.
  pool.on('connect', (client) => client.on('error', ignoreLostConnection));
  const { commits } = options;
  // Queued before any statement of the pool's users.
  if (commits !== undefined)
    pool.on('connect', (client) => {
      // The pool's clients are pg.Client instances (StatementClient), typed by the pool as their base.
      hearCommits(client as unknown as pg.Client, commits).catch((err: unknown) => {
        // A connection that cannot listen (made to a standby, which refuses LISTEN) is not used.
        log.warn({ err }, 'a database connection cannot listen for commits: dropped');
        void client.end().catch(() => undefined);
      });
    });
  const db = drizzlePg(pool) as unknown as Db;
  namedQueries.set(db, (name, text, values) => pool.query({ name, text, values }));
  return { db, pool };
}

function ignoreLostConnection(): void {}

async function openEmbedded(options: OpenOptions): Promise<Database> {
  const { dataDir, log } = options;
  mkdirSync(dataDir, { recursive: true });
  const release = await lockDataDir(dataDir);
  let client: PGlite;
  try {
    const reserve = new ReserveFile(dataDir, options.storageReserve, log);
    await reserve.releaseIfShort();
    await initEmbeddedCluster(dataDir);
    // After an abort nothing may reach the database again: the process ends (main.ts) and starts again.
    const aborts = abortWatch((err) =>
      setImmediate(() => {
        throw err;
      }),
    );
    const settings = embeddedOptions(options.sharedBuffers);
    client = new PGlite(dataDir, { ...settings, extensions: { ...settings.extensions, abortWatch: aborts.extension }, onStderr: aborts.onStderr });
    await client.waitReady;
    aborts.guard(client);
    const { rows: buffers } = await client.query<{ bytes: number }>("select pg_size_bytes(current_setting('shared_buffers'))::float8 as bytes");
    embeddedSharedBuffers.value = buffers[0]?.bytes ?? 0;
    const pglite = drizzlePglite(client);
    await migratePglite(pglite, { migrationsFolder: MIGRATIONS_FOLDER });
    const db = pglite as unknown as Db;
    const commits = new CommitVersions();
    await watchCommits(client, commits, log);
    await prepareOnlineCopies(client);
    namedQueries.set(db, pgliteNamedQuery(client, commits.heard));
    const storage = new StorageGuard({ log, reserveBytes: options.storageReserve, disk: { dataDir, reserve }, probe: () => probeDirSpace(dataDir) });
    await storage.start();
    log.info({ dataDir, sharedBufferBytes: embeddedSharedBuffers.value }, 'embedded database ready, migrations applied');
    const mayWrite = () => storage.mayWrite();
    const stopVacuuming = keepVacuumed(db, log, mayWrite);
    const stopCheckpoints = keepCheckpointed(db, log, mayWrite);
    return {
      db,
      kind: 'embedded',
      pooler: 'none',
      commits,
      copyOnline: (into) => copyEmbeddedOnline(client, dataDir, into),
      storage,
      ping: () => ping(db),
      close: () =>
        Promise.all([stopVacuuming(), stopCheckpoints(), storage.stop()])
          .then(() => client.close())
          .finally(release),
    };
  } catch (err) {
    release();
    throw err;
  }
}

async function ping(db: Db): Promise<boolean> {
  try {
    await db.execute(sql`select 1`);
    return true;
  } catch {
    return false;
  }
}
