import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { SERVER_CONNECTIONS } from '../db/commit-versions.js';
import { lockDataDir } from '../db/data-dir-lock.js';
import { EMBEDDED_OPTIONS, initEmbeddedCluster } from '../db/embedded.js';
import { RestoreRefused } from './refusal.js';
import { pgliteSession, postgresSession, type SqlSession } from './session.js';

/** Where a database is: a PostgreSQL database, or an embedded data directory (DATA_DIR). */
export type Place = { kind: 'postgres'; url: string } | { kind: 'embedded'; dir: string };

export function placeOf(text: string): Place {
  return /^postgres(ql)?:\/\//.test(text) ? { kind: 'postgres', url: text } : { kind: 'embedded', dir: resolve(text) };
}

/** How a place is named to an operator: never a URL's password. */
export function describePlace(place: Place): string {
  if (place.kind === 'embedded') return place.dir;
  const url = new URL(place.url);
  return `postgres://${url.host}${url.pathname}`;
}

/** Objects of the `public` schema an extension did not make, and how each is dropped. */
const OURS_IN_PUBLIC = `
  select format('drop %s if exists %s cascade', case c.relkind when 'v' then 'view' when 'm' then 'materialized view' when 'S' then 'sequence' when 'f' then 'foreign table' when 'c' then 'type' else 'table' end,
                quote_ident(n.nspname) || '.' || quote_ident(c.relname)) as statement
  from pg_class c join pg_namespace n on n.oid = c.relnamespace
  where n.nspname = 'public' and c.relkind in ('r', 'p', 'v', 'm', 'S', 'f', 'c')
    and not exists (select 1 from pg_depend d where d.classid = 'pg_class'::regclass and d.objid = c.oid and d.deptype in ('e', 'i', 'a'))
  union all
  select format('drop %s if exists %s cascade', case p.prokind when 'p' then 'procedure' when 'a' then 'aggregate' else 'function' end, p.oid::regprocedure)
  from pg_proc p where p.pronamespace = 'public'::regnamespace
    and not exists (select 1 from pg_depend d where d.classid = 'pg_proc'::regclass and d.objid = p.oid and d.deptype = 'e')
  union all
  select format('drop %s if exists %s cascade', case t.typtype when 'd' then 'domain' else 'type' end, t.oid::regtype)
  from pg_type t where t.typnamespace = 'public'::regnamespace and t.typtype in ('e', 'd', 'r')
    and not exists (select 1 from pg_depend d where d.classid = 'pg_type'::regclass and d.objid = t.oid and d.deptype = 'e')`;

/** Tables of the schema (drizzle's record of migrations aside) that hold at least one row. */
async function tablesWithRows(session: SqlSession): Promise<string[]> {
  const tables = await session.rows<{ name: string }>(
    `select quote_ident(n.nspname) || '.' || quote_ident(c.relname) as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
     where n.nspname in ('public', 'drizzle') and c.relkind = 'r' and c.relname <> '__drizzle_migrations'
       and not exists (select 1 from pg_depend d where d.classid = 'pg_class'::regclass and d.objid = c.oid and d.deptype = 'e')`,
  );
  const held: string[] = [];
  for (const { name } of tables) {
    const [row] = await session.rows<{ held: boolean }>(`select exists (select 1 from ${name}) as held`);
    if (row?.held === true) held.push(name);
  }
  return held;
}

const REPLACE_HINT = 'Nothing was changed. To replace what it holds, add --replace.';

/**
 * Runs `work` on the empty database at `place`, in one transaction that commits only when `work`
 * resolves: a failure anywhere leaves the place as it was. A PostgreSQL database that holds rows
 * is refused unless `replace`; one with a schema but no rows (a server started on it once) counts
 * as empty. Either way what is there is dropped inside the same transaction. An embedded database
 * is built in a new directory beside DATA_DIR and put in its place at the end.
 */
export async function intoPlace<T>(place: Place, replace: boolean, work: (session: SqlSession) => Promise<T>): Promise<T> {
  return place.kind === 'postgres' ? intoPostgres(place.url, replace, work) : intoEmbedded(place.dir, replace, work);
}

async function intoPostgres<T>(url: string, replace: boolean, work: (session: SqlSession) => Promise<T>): Promise<T> {
  const session = await postgresSession(url);
  try {
    const [servers] = await session.rows<{ n: number }>(
      `select count(*)::int as n from pg_stat_activity where datname = current_database() and application_name like $1 || '%' and pid <> pg_backend_pid()`,
      [SERVER_CONNECTIONS],
    );
    if ((servers?.n ?? 0) > 0) throw new RestoreRefused(`${servers?.n} connections of a running engage-server are open to that database: stop its servers first. Nothing was changed.`);
    await session.run('begin');
    const held = await tablesWithRows(session);
    if (held.length > 0 && !replace) throw new RestoreRefused(`The target database holds data (${held.length} tables with rows, e.g. ${held.slice(0, 3).join(', ')}). ${REPLACE_HINT}`);
    await session.run('drop schema if exists drizzle cascade');
    for (const { statement } of await session.rows<{ statement: string }>(OURS_IN_PUBLIC)) await session.run(statement);
    const result = await work(session);
    await session.run('commit');
    return result;
  } catch (err) {
    await session.run('rollback').catch(() => undefined);
    throw err;
  } finally {
    await session.close().catch(() => undefined);
  }
}

async function intoEmbedded<T>(dir: string, replace: boolean, work: (session: SqlSession) => Promise<T>): Promise<T> {
  const exists = existsSync(dir);
  if (exists && !statSync(dir).isDirectory()) throw new RestoreRefused(`${dir} is not a directory. Nothing was changed.`);
  const holds = exists && readdirSync(dir).length > 0;
  if (holds && !replace) throw new RestoreRefused(`The data directory ${dir} is not empty. ${REPLACE_HINT}`);
  const release = exists ? await lockDataDir(dir).catch(refuseInUse) : () => {};
  const building = join(dirname(dir), `.${basename(dir)}.restoring-${process.pid}`);
  try {
    rmSync(building, { recursive: true, force: true });
    mkdirSync(building, { recursive: true });
    await initEmbeddedCluster(building);
    const client = new PGlite(building, EMBEDDED_OPTIONS);
    const session = pgliteSession(client, () => client.close());
    let result: T;
    try {
      await session.run('begin');
      result = await work(session);
      await session.run('commit');
    } finally {
      await session.close();
    }
    swapIn(building, dir, exists);
    return result;
  } catch (err) {
    rmSync(building, { recursive: true, force: true });
    throw err;
  } finally {
    release();
  }
}

/** Puts the directory built beside `dir` in its place (two renames: the old one, empty or replaced, goes last). */
function swapIn(building: string, dir: string, exists: boolean): void {
  if (!exists) return renameSync(building, dir);
  const old = join(dirname(dir), `.${basename(dir)}.replaced-${process.pid}`);
  renameSync(dir, old);
  renameSync(building, dir);
  rmSync(old, { recursive: true, force: true });
}

function refuseInUse(err: unknown): never {
  throw new RestoreRefused(`${(err as Error).message} Stop it first. Nothing was changed.`);
}

/** A session on the database at `place`, to read it whole (a move's source); an embedded one must not be in use. */
export async function openPlace(place: Place): Promise<SqlSession> {
  if (place.kind === 'postgres') return postgresSession(place.url);
  if (!existsSync(join(place.dir, 'PG_VERSION'))) throw new RestoreRefused(`${place.dir} holds no embedded database.`);
  const release = await lockDataDir(place.dir).catch((err: unknown) => {
    throw new RestoreRefused(`${(err as Error).message} Stop it first, or take a backup from it while it runs (POST /api/v3/manage/backups) and move that.`);
  });
  try {
    const client = new PGlite(place.dir, EMBEDDED_OPTIONS);
    await client.waitReady;
    return pgliteSession(client, () => client.close().finally(release));
  } catch (err) {
    release();
    throw err;
  }
}
