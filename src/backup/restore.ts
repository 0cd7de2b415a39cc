import { afterLoad, beforeLoad, type Catalog, type CatalogTable, identifier, readCatalog, setval } from './catalog.js';
import { linesIn } from './dump.js';
import { END_PREFIX, type EndLine, FORMAT_LINE, type Manifest, MANIFEST_PREFIX, parseCopyLine, SESSION_SETTINGS } from './format.js';
import { MIGRATIONS_TABLE, migrationStatements, schemaPlan } from './migrations.js';
import type { Progress } from './progress.js';
import { damaged, BackupReader } from './reader.js';
import { RestoreRefused } from './refusal.js';
import type { SqlSession } from './session.js';

export interface RestoreSummary {
  manifest: Manifest;
  rows: number;
  /** Migrations applied after the rows, the backup being older than this code. */
  migratedForward: number;
}

/**
 * Restores a backup (its text, uncompressed) into the database of `session`, inside the
 * transaction the caller holds open on an empty database, so that a refusal, a damaged file or a
 * failed statement leaves it empty. The schema is made by this code's own migrations, up to those
 * the backup's source had applied; its rows are loaded into the tables the catalog then shows,
 * each COPY block checked against them; the migrations the backup lacks run last.
 */
export async function restoreInto(session: SqlSession, input: AsyncIterable<Buffer>, progress?: Progress): Promise<RestoreSummary> {
  const reader = new BackupReader(input);
  const manifest = await readHead(reader);
  const plan = schemaPlan(manifest.migrations, 'The backup');
  progress?.begin(manifest.tables.reduce((sum, t) => sum + t.rows, 0));
  progress?.phase('making the schema');
  await session.run([...SESSION_SETTINGS, ...MIGRATIONS_TABLE].join(';\n'));
  for (const statement of migrationStatements(plan.have)) await session.run(statement);
  const catalog = await readCatalog(session);
  const tables = new Map(catalog.tables.map((t) => [t.name, t]));
  for (const { name } of manifest.tables) if (!tables.has(name)) throw new RestoreRefused(`The backup holds table ${name}, which engage-server's schema does not have.`);
  for (const statement of beforeLoad(catalog)) await session.run(statement);
  const rows = await eachTable(reader, manifest, async (name, columns, data) => {
    const table = tables.get(name) as CatalogTable;
    // Each of the backup's columns as this database spells it (another version may quote it otherwise).
    const ours = new Map(table.columns.map((c) => [identifier(c), c]));
    const unknown = columns.filter((c) => !ours.has(identifier(c)));
    if (unknown.length > 0 || new Set(columns).size !== columns.length) throw new RestoreRefused(`The backup's table ${name} has columns (${unknown.join(', ')}) engage-server's schema does not.`);
    progress?.phase(`loading ${name}`);
    const loaded = columns.map((c) => ours.get(identifier(c)) as string);
    return session.copyIn(`copy ${name} (${loaded.join(', ')})`, counted(data, progress)).catch((err: unknown) => {
      // Rows the database cannot take are damaged ones: the schema is the backup's own.
      throw err instanceof RestoreRefused ? err : damaged(`${name}: ${(err as Error).message}`);
    });
  });
  await finish(session, catalog, manifest, progress);
  progress?.phase(`applying ${plan.forward.length} newer migrations`);
  for (const statement of migrationStatements(plan.forward)) await session.run(statement);
  return { manifest, rows, migratedForward: plan.forward.length };
}

/**
 * Reads a backup file whole, without a database, as a restore would: its kind, its manifest, its
 * schema version, every table's rows against the manifest, its checksum. A restore from a file
 * checks it first, so that a truncated or damaged file is refused before the target is touched.
 */
export async function checkBackup(input: AsyncIterable<Buffer>, progress?: Progress): Promise<Manifest> {
  const reader = new BackupReader(input);
  const manifest = await readHead(reader);
  schemaPlan(manifest.migrations, 'The backup');
  progress?.begin(manifest.tables.reduce((sum, t) => sum + t.rows, 0));
  progress?.phase('checking the file');
  await eachTable(reader, manifest, async (_name, _columns, data) => {
    let rows = 0;
    for await (const piece of data) {
      const n = linesIn(piece);
      rows += n;
      progress?.add(n);
    }
    return rows;
  });
  return manifest;
}

/**
 * Reads the backup past its head to its end line, handing each COPY block to `load` (which
 * resolves to the rows it took), and checks what it read: every table of the manifest once, with
 * its rows, and the checksum. Resolves to the rows in all.
 */
async function eachTable(reader: BackupReader, manifest: Manifest, load: (table: string, columns: string[], data: AsyncIterable<Buffer>) => Promise<number>): Promise<number> {
  const expected = new Map(manifest.tables.map((t) => [t.name, t.rows]));
  const loaded = new Set<string>();
  let rows = 0;
  for (;;) {
    const line = await reader.line();
    if (line === undefined) throw damaged('its end line is missing');
    if (line.startsWith(END_PREFIX)) {
      checkEnd(line, reader.digestBeforeLastLine(), rows);
      break;
    }
    const copy = parseCopyLine(line);
    if (copy === undefined) continue;
    if (!expected.has(copy.table)) throw damaged(`it copies into ${copy.table}, which its manifest does not list`);
    if (loaded.has(copy.table)) throw damaged(`it copies into ${copy.table} twice`);
    loaded.add(copy.table);
    const copied = await load(copy.table, copy.columns, reader.rows());
    if (copied !== expected.get(copy.table)) throw damaged(`${copy.table} has ${copied} rows where its manifest says ${expected.get(copy.table)}`);
    rows += copied;
  }
  if ((await reader.line()) !== undefined) throw damaged('something follows its end line');
  const missing = [...expected.keys()].filter((name) => !loaded.has(name));
  if (missing.length > 0) throw damaged(`the rows of ${missing.join(', ')} are missing`);
  return rows;
}

async function readHead(reader: BackupReader): Promise<Manifest> {
  if (!(await reader.begins(`${FORMAT_LINE}\n`))) throw new RestoreRefused('This is not an engage-server backup (its first line is not "-- engage-server backup 1"): nothing was restored.');
  await reader.line();
  const second = await reader.line();
  if (second === undefined || !second.startsWith(MANIFEST_PREFIX)) throw damaged('its manifest is missing');
  try {
    const manifest = JSON.parse(second.slice(MANIFEST_PREFIX.length)) as Manifest;
    if (!Array.isArray(manifest.migrations) || !Array.isArray(manifest.tables) || !Array.isArray(manifest.sequences)) throw new Error('incomplete');
    return manifest;
  } catch {
    throw damaged('its manifest is not readable');
  }
}

function checkEnd(line: string, digest: string, rows: number): void {
  let end: EndLine;
  try {
    end = JSON.parse(line.slice(END_PREFIX.length)) as EndLine;
  } catch {
    throw damaged('its end line is not readable');
  }
  if (end.sha256 !== digest) throw damaged('its checksum does not match its content');
  if (end.rows !== rows) throw damaged(`it holds ${rows} rows where its end line says ${end.rows}`);
}

/** Indexes, foreign keys (every row checked once), triggers, the sequences where the source left them, and the planner's statistics. */
async function finish(session: SqlSession, catalog: Catalog, manifest: Manifest, progress: Progress | undefined): Promise<void> {
  const statements = afterLoad(catalog);
  for (const [i, statement] of statements.entries()) {
    progress?.phase(`rebuilding indexes and constraints (${i + 1} of ${statements.length})`);
    await session.run(statement);
  }
  for (const sequence of manifest.sequences) {
    if (!catalog.sequences.includes(sequence.name)) throw new RestoreRefused(`The backup sets sequence ${sequence.name}, which engage-server's schema does not have.`);
    await session.run(setval(sequence));
  }
  progress?.phase('analysing');
  await session.run('analyze');
}

async function* counted(pieces: AsyncIterable<Buffer>, progress: Progress | undefined): AsyncGenerator<Buffer> {
  for await (const piece of pieces) {
    progress?.add(linesIn(piece));
    yield piece;
  }
}
