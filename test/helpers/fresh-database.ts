import pg from 'pg';

/** Runs `statement` on the server `databaseUrl` names, as its owner would. */
export async function administer(databaseUrl: string, statement: string): Promise<void> {
  const admin = new pg.Client({ connectionString: databaseUrl });
  await admin.connect();
  try {
    await admin.query(statement);
  } finally {
    await admin.end();
  }
}

/**
 * An empty database of its own next to the one `databaseUrl` names (`{name}_{suffix}`, dropped
 * first if there): for one checkout of a before/after benchmark, or for a test server whose
 * settings act on every application of its database (a sweeper of idle sessions, a retention), which
 * the other test files' servers share. Its URL, or undefined on the embedded default (no `databaseUrl`).
 */
export async function freshDatabase(databaseUrl: string | undefined, suffix: string): Promise<string | undefined> {
  if (databaseUrl === undefined) return undefined;
  const url = databaseNextTo(databaseUrl, suffix);
  const name = new URL(url).pathname.slice(1);
  await administer(databaseUrl, `drop database if exists ${name} with (force)`);
  await administer(databaseUrl, `create database ${name}`);
  return url;
}

/** The URL of the database `{name}_{suffix}` next to the one `databaseUrl` names, without making it; undefined on the embedded default. */
export function databaseNextTo(databaseUrl: string, suffix: string): string;
export function databaseNextTo(databaseUrl: string | undefined, suffix: string): string | undefined;
export function databaseNextTo(databaseUrl: string | undefined, suffix: string): string | undefined {
  if (databaseUrl === undefined) return undefined;
  const url = new URL(databaseUrl);
  url.pathname = `/${`${url.pathname.slice(1)}_${suffix}`.replace(/[^a-z0-9_]/gi, '_')}`;
  return url.toString();
}

/** Drops a database `freshDatabase` made (nothing when undefined). */
export async function dropDatabase(databaseUrl: string | undefined): Promise<void> {
  if (databaseUrl === undefined) return;
  const url = new URL(databaseUrl);
  const name = url.pathname.slice(1);
  url.pathname = '/postgres';
  await administer(url.toString(), `drop database if exists ${name} with (force)`);
}

/** The settings that put a server on `databaseUrl` (none on the embedded default). */
export function onDatabase(databaseUrl: string | undefined): Record<string, string> {
  return databaseUrl === undefined ? {} : { DATABASE_URL: databaseUrl };
}
