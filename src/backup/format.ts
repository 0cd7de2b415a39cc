import type { AppliedMigration } from './migrations.js';
import type { SequenceValue } from './catalog.js';

/**
 * A backup is a PostgreSQL script, as `pg_dump --format=plain` writes one (gzipped when it is a
 * file): psql restores it into an empty database, and engage-server reads it back. Its first
 * two lines say what it is; its last line, after the COMMIT, closes it. In between, one
 * transaction: the schema (the migrations the source had applied, in order), then each table's
 * rows as a COPY block in the text format, then the indexes, foreign keys and sequence values.
 *
 *   -- engage-server backup 1
 *   -- manifest: {"made":…,"source":…,"migrations":[…],"tables":[…],"sequences":[…]}
 *   …SET, BEGIN, the schema…
 *   COPY public.chat_events (id, …) FROM stdin;
 *   <rows>
 *   \.
 *   …indexes, constraints, setval, COMMIT…
 *   -- end: {"rows":…,"sha256":…}
 *
 * The end line carries the SHA-256 of everything before it: a truncated or altered file is
 * refused, gzipped or not.
 */
export const FORMAT_LINE = '-- engage-server backup 1';
export const MANIFEST_PREFIX = '-- manifest: ';
export const END_PREFIX = '-- end: ';
export const COPY_END = '\\.';
/** A COPY block's first line: the table and its columns, quoted. */
export const copyLine = (table: string, columns: string[]) => `COPY ${table} (${columns.join(', ')}) FROM stdin;`;
const COPY_LINE = /^COPY (\S+) \((.*)\) FROM stdin;$/;

export interface Manifest {
  /** When the snapshot was taken (ISO 8601). */
  made: string;
  source: 'embedded' | 'postgres';
  migrations: AppliedMigration[];
  /** Every table the backup holds, parents first, with its rows. */
  tables: { name: string; rows: number }[];
  sequences: SequenceValue[];
}

export interface EndLine {
  rows: number;
  sha256: string;
}

/** The session settings a backup is written and read under: the text of every value means one thing. */
export const SESSION_SETTINGS = [
  'set statement_timeout = 0',
  'set lock_timeout = 0',
  "set client_encoding = 'UTF8'",
  'set standard_conforming_strings = on',
  "set datestyle = 'ISO, MDY'",
  'set intervalstyle = postgres',
  "set timezone = 'UTC'",
  'set extra_float_digits = 3',
  'set search_path = public',
  'set client_min_messages = warning',
];

/** The table and columns of a COPY block's first line, or undefined when the line is none. */
export function parseCopyLine(line: string): { table: string; columns: string[] } | undefined {
  const match = COPY_LINE.exec(line);
  if (match === null) return undefined;
  return { table: match[1] as string, columns: (match[2] as string).split(', ') };
}

/** A statement as psql takes it: ended by a semicolon (on a line of its own after a closing comment). */
export const statementLine = (statement: string) => {
  const text = statement.trim();
  if (text.endsWith(';')) return text;
  return /--[^\n]*$/.test(text) ? `${text}\n;` : `${text};`;
};
