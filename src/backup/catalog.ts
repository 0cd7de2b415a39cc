import type { SqlSession } from './session.js';

/**
 * What a backup carries and a restore fills, read from the database's own catalog rather than
 * from a list of today's tables: every table of the `public` schema (those of an extension
 * aside), its columns, and what a bulk load does without and rebuilds after (foreign keys,
 * indexes that back no constraint, triggers). A migration that adds a table or a column is
 * carried without a change here.
 */
export interface Catalog {
  /** Parents before the tables whose foreign keys point at them. */
  tables: CatalogTable[];
  foreignKeys: Definition[];
  indexes: Definition[];
  sequences: string[];
}

export interface CatalogTable {
  /** Schema-qualified and quoted, as SQL takes it. */
  name: string;
  /** Quoted; generated columns left out (a load cannot write them). */
  columns: string[];
  /** It has triggers of its own (the webhook journal's, a server's commit triggers): a load turns them off. */
  triggers: boolean;
}

export interface Definition {
  /** The table it belongs to, quoted. */
  table: string;
  /** Its name, quoted (an index: schema-qualified). */
  name: string;
  /** As `pg_get_constraintdef` or `pg_get_indexdef` write it. */
  definition: string;
}

/**
 * An identifier as the database names it, whichever way it was quoted: `quote_ident` quotes a word
 * that is a keyword in its own version only (`json` since Postgres 16), so Postgres 15 and the
 * embedded database (17) write the same column two ways.
 */
export function identifier(quoted: string): string {
  return quoted.startsWith('"') && quoted.endsWith('"') ? quoted.slice(1, -1).replaceAll('""', '"') : quoted;
}

const SCHEMA = 'public';
const QUALIFIED = `quote_ident(n.nspname) || '.' || quote_ident(c.relname)`;
/** Objects an extension made (pg_trgm's) belong to it, not to the backup. */
const NOT_OF_EXTENSION = (oid: string) => `not exists (select 1 from pg_depend d where d.classid = 'pg_class'::regclass and d.objid = ${oid} and d.deptype = 'e')`;

export async function readCatalog(session: SqlSession): Promise<Catalog> {
  const tables = await session.rows<{ oid: number; name: string; columns: string[]; triggers: boolean }>(
    `select c.oid::int as oid, ${QUALIFIED} as name,
       array(select quote_ident(a.attname) from pg_attribute a
             where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped and a.attgenerated = '' order by a.attnum) as columns,
       exists (select 1 from pg_trigger t where t.tgrelid = c.oid and not t.tgisinternal) as triggers
     from pg_class c join pg_namespace n on n.oid = c.relnamespace
     where n.nspname = $1 and c.relkind = 'r' and ${NOT_OF_EXTENSION('c.oid')}
     order by c.relname`,
    [SCHEMA],
  );
  const references = await session.rows<{ child: number; parent: number }>(
    `select conrelid::int as child, confrelid::int as parent from pg_constraint where contype = 'f' and connamespace = $1::regnamespace and conrelid <> confrelid`,
    [SCHEMA],
  );
  const foreignKeys = await session.rows<Definition>(
    `select ${QUALIFIED} as table, quote_ident(k.conname) as name, pg_get_constraintdef(k.oid) as definition
     from pg_constraint k join pg_class c on c.oid = k.conrelid join pg_namespace n on n.oid = c.relnamespace
     where k.contype = 'f' and n.nspname = $1 order by c.relname, k.conname`,
    [SCHEMA],
  );
  const indexes = await session.rows<Definition>(
    `select ${QUALIFIED.replaceAll('c.', 't.')} as table, quote_ident(n.nspname) || '.' || quote_ident(c.relname) as name, pg_get_indexdef(c.oid) as definition
     from pg_index i join pg_class c on c.oid = i.indexrelid join pg_class t on t.oid = i.indrelid join pg_namespace n on n.oid = c.relnamespace
     where n.nspname = $1 and ${NOT_OF_EXTENSION('t.oid')}
       and not exists (select 1 from pg_constraint k where k.conindid = c.oid and k.contype in ('p', 'u', 'x'))
     order by c.relname`,
    [SCHEMA],
  );
  const sequences = await session.rows<{ name: string }>(
    `select ${QUALIFIED} as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
     where n.nspname = $1 and c.relkind = 'S' and ${NOT_OF_EXTENSION('c.oid')} order by c.relname`,
    [SCHEMA],
  );
  return {
    tables: inDependencyOrder(tables, references).map(({ name, columns, triggers }) => ({ name, columns, triggers })),
    foreignKeys,
    indexes,
    sequences: sequences.map((s) => s.name),
  };
}

/** Tables with every table they reference before them (a table referencing itself, or a cycle, keeps its place). */
function inDependencyOrder<T extends { oid: number }>(tables: T[], references: { child: number; parent: number }[]): T[] {
  const byOid = new Map(tables.map((t) => [t.oid, t]));
  const placed = new Set<number>();
  const visiting = new Set<number>();
  const ordered: T[] = [];
  const place = (table: T) => {
    if (placed.has(table.oid) || visiting.has(table.oid)) return;
    visiting.add(table.oid);
    for (const r of references) {
      const parent = r.child === table.oid ? byOid.get(r.parent) : undefined;
      if (parent !== undefined) place(parent);
    }
    visiting.delete(table.oid);
    placed.add(table.oid);
    ordered.push(table);
  };
  for (const table of tables) place(table);
  return ordered;
}

/**
 * What a bulk load does first: foreign keys and indexes that back no constraint go (rebuilt once
 * at the end, as pg_dump orders a restore: a foreign key checked row by row and a trigram index
 * grown row by row cost several times the load), and triggers are turned off (the webhook
 * journal's would journal every restored comment as new).
 */
export function beforeLoad(catalog: Catalog): string[] {
  return [
    ...catalog.foreignKeys.map((k) => `alter table ${k.table} drop constraint ${k.name}`),
    ...catalog.indexes.map((i) => `drop index ${i.name}`),
    ...catalog.tables.filter((t) => t.triggers).map((t) => `alter table ${t.name} disable trigger user`),
  ];
}

/** What a bulk load does last: indexes, then foreign keys (each checks every row once), then triggers back on. */
export function afterLoad(catalog: Catalog): string[] {
  return [
    ...catalog.indexes.map((i) => i.definition),
    ...catalog.foreignKeys.map((k) => `alter table ${k.table} add constraint ${k.name} ${k.definition}`),
    ...catalog.tables.filter((t) => t.triggers).map((t) => `alter table ${t.name} enable trigger user`),
  ];
}

/** A sequence's position: `setval`'s arguments (a sequence never used has none). */
export interface SequenceValue {
  name: string;
  value: string;
}

/** Read after the snapshot is taken: a sequence is not transactional, so its value is at least what any row of the snapshot used. */
export async function sequenceValues(session: SqlSession, catalog: Catalog): Promise<SequenceValue[]> {
  if (catalog.sequences.length === 0) return [];
  const values = await session.rows<{ name: string; value: string | null }>(`select name, pg_sequence_last_value(name::regclass)::text as value from unnest($1::text[]) as name`, [catalog.sequences]);
  return values.filter((s): s is SequenceValue => s.value !== null);
}

export const setval = (s: SequenceValue) => `select pg_catalog.setval('${s.name.replaceAll("'", "''")}', ${BigInt(s.value)}, true)`;
