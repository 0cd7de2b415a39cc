import pg from 'pg';

/**
 * An empty database of its own for one checkout of a before/after benchmark, next to the one
 * `databaseUrl` names (`{name}_{suffix}`, dropped first if there): each checkout migrates and
 * fills its own. Its URL, or undefined on the embedded default (no `databaseUrl`).
 */
export async function freshDatabase(databaseUrl: string | undefined, suffix: string): Promise<string | undefined> {
  if (databaseUrl === undefined) return undefined;
  const url = new URL(databaseUrl);
  const name = `${url.pathname.slice(1)}_${suffix}`.replace(/[^a-z0-9_]/gi, '_');
  const admin = new pg.Client({ connectionString: databaseUrl });
  await admin.connect();
  try {
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
  url.pathname = `/${name}`;
  return url.toString();
}
