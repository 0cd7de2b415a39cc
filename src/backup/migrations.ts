import { readMigrationFiles } from 'drizzle-orm/migrator';
import { MIGRATIONS_FOLDER } from '../db/client.js';
import { RestoreRefused } from './refusal.js';
import type { SqlSession } from './session.js';

/** A migration as drizzle records it in `drizzle.__drizzle_migrations`: the hash of its file and the time of its journal entry. */
export interface AppliedMigration {
  hash: string;
  createdAt: number;
}

export interface CodeMigration extends AppliedMigration {
  /** Its statements, split where drizzle splits them. */
  statements: string[];
}

/** This code's migrations, in order. */
export function codeMigrations(): CodeMigration[] {
  return readMigrationFiles({ migrationsFolder: MIGRATIONS_FOLDER }).map((m) => ({ hash: m.hash, createdAt: m.folderMillis, statements: m.sql }));
}

/** The migrations a database has applied, in order (none when it has never been migrated). */
export async function appliedMigrations(session: SqlSession): Promise<AppliedMigration[]> {
  const [table] = await session.rows<{ present: boolean }>(`select to_regclass('drizzle.__drizzle_migrations') is not null as present`);
  if (table?.present !== true) return [];
  const rows = await session.rows<{ hash: string; created_at: string }>(`select hash, created_at::text from drizzle.__drizzle_migrations order by created_at, id`);
  return rows.map((r) => ({ hash: r.hash, createdAt: Number(r.created_at) }));
}

/**
 * How a schema at `applied` becomes this code's: the code's migrations it already has (it must
 * have them all, in the same order and with the same files: a backup of a newer or a forked
 * server is refused) and the ones it lacks, which a restore applies once the rows are in. `what`
 * names the schema's owner in a refusal ("the backup", "the database").
 */
export function schemaPlan(applied: AppliedMigration[], what: string): { have: CodeMigration[]; forward: CodeMigration[] } {
  const code = codeMigrations();
  const newest = code.at(-1)?.createdAt ?? 0;
  applied.forEach((migration, i) => {
    const ours = code[i];
    if (ours?.hash === migration.hash && ours.createdAt === migration.createdAt) return;
    if (ours === undefined || migration.createdAt > newest)
      throw new RestoreRefused(
        `${what} has a migration of ${new Date(migration.createdAt).toISOString()}, newer than this engage-server's (${code.length} migrations): it was made by a newer version. Use that version (or a later one).`,
      );
    throw new RestoreRefused(`${what}'s migration ${i + 1} (of ${new Date(migration.createdAt).toISOString()}) is not this engage-server's: it comes from another version or a fork.`);
  });
  return { have: code.slice(0, applied.length), forward: code.slice(applied.length) };
}

/** The statements that apply `migrations` and record them, as drizzle's migrator does. */
export function migrationStatements(migrations: CodeMigration[]): string[] {
  return migrations.flatMap((m) => [...m.statements, `insert into drizzle.__drizzle_migrations (hash, created_at) values ('${m.hash}', ${m.createdAt})`]);
}

/** drizzle's own table of migrations, as its migrator makes it. */
export const MIGRATIONS_TABLE = ['create schema if not exists drizzle', 'create table if not exists drizzle.__drizzle_migrations (id serial primary key, hash text not null, created_at bigint)'];
