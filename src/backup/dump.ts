import { createHash } from 'node:crypto';
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { afterLoad, beforeLoad, readCatalog, sequenceValues, setval } from './catalog.js';
import { COPY_END, copyLine, END_PREFIX, FORMAT_LINE, type Manifest, MANIFEST_PREFIX, SESSION_SETTINGS, statementLine } from './format.js';
import { appliedMigrations, MIGRATIONS_TABLE, migrationStatements, schemaPlan } from './migrations.js';
import type { Progress } from './progress.js';
import type { SqlSession } from './session.js';

const HOW_TO_RESTORE = [
  '-- Restore with engage-server: npm run restore -- FILE (docs/backups.md).',
  '-- Or into an empty PostgreSQL database: gunzip -c FILE | psql -v ON_ERROR_STOP=1 -d DATABASE_URL',
  "-- It holds API token hashes, never tokens, and the applications' JWT and webhook secrets: keep it as a secret.",
];

/**
 * Writes a backup of the database `session` is on to `out` (uncompressed: the caller gzips a file).
 * Everything is read in one repeatable-read transaction, so the backup is the database as it was at
 * one instant: every write committed before it, none after. Resolves to the manifest once the
 * last byte is written.
 */
export async function dump(session: SqlSession, out: Writable, progress?: Progress): Promise<Manifest> {
  const hash = createHash('sha256');
  const write = async (text: string | Buffer) => {
    const bytes = typeof text === 'string' ? Buffer.from(text) : text;
    hash.update(bytes);
    if (!out.write(bytes)) await once(out, 'drain');
  };
  await session.run('begin isolation level repeatable read read only');
  try {
    await session.run(SESSION_SETTINGS.join(';\n'));
    const applied = await appliedMigrations(session);
    const { have } = schemaPlan(applied, 'The database');
    const catalog = await readCatalog(session);
    const tables: Manifest['tables'] = [];
    for (const table of catalog.tables) {
      const [counted] = await session.rows<{ n: string }>(`select count(*)::text as n from ${table.name}`);
      tables.push({ name: table.name, rows: Number(counted?.n ?? 0) });
    }
    const manifest: Manifest = { made: new Date().toISOString(), source: session.kind, migrations: applied, tables, sequences: await sequenceValues(session, catalog) };
    progress?.begin(tables.reduce((sum, t) => sum + t.rows, 0));

    const statements = (list: string[]) => write(`${list.map(statementLine).join('\n')}\n`);
    await write(`${FORMAT_LINE}\n${MANIFEST_PREFIX}${JSON.stringify(manifest)}\n${HOW_TO_RESTORE.join('\n')}\n`);
    await statements([...SESSION_SETTINGS, 'begin', ...MIGRATIONS_TABLE, ...migrationStatements(have), ...beforeLoad(catalog)]);
    let rows = 0;
    for (const table of catalog.tables) {
      progress?.phase(`copying ${table.name}`);
      await write(`${copyLine(table.name, table.columns)}\n`);
      for await (const piece of session.copyOut(table.name, table.columns)) {
        const n = linesIn(piece);
        rows += n;
        progress?.add(n);
        await write(piece);
      }
      await write(`${COPY_END}\n`);
    }
    await statements([...afterLoad(catalog), ...manifest.sequences.map(setval), 'analyze', 'commit']);
    await write(`${END_PREFIX}${JSON.stringify({ rows, sha256: hash.copy().digest('hex') })}\n`);
    return manifest;
  } finally {
    await session.run('rollback').catch(() => undefined);
  }
}

/** Rows in a piece of COPY text: one per line. */
export function linesIn(piece: Buffer): number {
  let n = 0;
  for (let at = piece.indexOf(10); at !== -1; at = piece.indexOf(10, at + 1)) n++;
  return n;
}
