import { once } from 'node:events';
import type { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { from as copyFrom, to as copyTo } from 'pg-copy-streams';

/**
 * One connection to a database that a backup reads or a restore writes: PGlite (an embedded data
 * directory) or PostgreSQL. Statements run one at a time, on the same session, so `begin` … `commit`
 * spans the calls between them. Both speak COPY's text format, the one a backup file carries.
 */
export interface SqlSession {
  readonly kind: 'embedded' | 'postgres';
  rows<T>(text: string, params?: unknown[]): Promise<T[]>;
  /** Statements without parameters, several at once. */
  run(text: string): Promise<void>;
  /** A table's rows in COPY's text format (`table` and `columns` quoted), in pieces of whole rows. */
  copyOut(table: string, columns: string[]): AsyncIterable<Buffer>;
  /** Feeds `copy … from stdin` with `data`, each piece whole rows; resolves to the rows copied. */
  copyIn(copy: string, data: AsyncIterable<Buffer>): Promise<number>;
  close(): Promise<void>;
}

/** PGlite holds a COPY's data in memory: a piece of this many bytes of rows goes in one statement… */
const EMBEDDED_COPY_BYTES = 8 * 1024 * 1024;
/** …and one `copy to` reads this many of a table's 8 KB pages (a range of row positions) at a time. */
const EMBEDDED_COPY_PAGES = 2048;

export function pgliteSession(client: PGlite, close: () => Promise<void>): SqlSession {
  return {
    kind: 'embedded',
    async rows<T>(text: string, params: unknown[] = []) {
      return (await client.query<T>(text, params)).rows;
    },
    async run(text) {
      await client.exec(text);
    },
    async *copyOut(table, columns) {
      const [size] = (await client.query<{ pages: number }>(`select (pg_relation_size($1::regclass) / current_setting('block_size')::int)::int as pages`, [table])).rows;
      const list = columns.join(', ');
      for (let page = 0; page < (size?.pages ?? 0); page += EMBEDDED_COPY_PAGES) {
        const range = `ctid >= '(${page},0)'::tid and ctid < '(${page + EMBEDDED_COPY_PAGES},0)'::tid`;
        const result = await client.query(`copy (select ${list} from ${table} where ${range}) to '/dev/blob'`);
        if (result.blob !== undefined && result.blob.size > 0) yield Buffer.from(await result.blob.arrayBuffer());
      }
    },
    async copyIn(copy, data) {
      let copied = 0;
      const flush = async (pieces: Buffer[]) => {
        const result = await client.query(`${copy} from '/dev/blob'`, [], { blob: new Blob(pieces as Uint8Array<ArrayBuffer>[]) });
        copied += result.affectedRows ?? 0;
      };
      let pending: Buffer[] = [];
      let bytes = 0;
      for await (const piece of data) {
        pending.push(piece);
        bytes += piece.length;
        if (bytes < EMBEDDED_COPY_BYTES) continue;
        await flush(pending);
        pending = [];
        bytes = 0;
      }
      if (bytes > 0) await flush(pending);
      return copied;
    },
    close,
  };
}

/** A connection of its own to PostgreSQL (not the server's pool: a backup holds one transaction for its whole length). */
export async function postgresSession(url: string): Promise<SqlSession> {
  const client = new pg.Client({ connectionString: url, application_name: 'engage-backup' });
  await client.connect();
  // A lost connection fails the statement under way; without a listener it would end the process.
  client.on('error', () => undefined);
  return {
    kind: 'postgres',
    async rows<T>(text: string, params: unknown[] = []) {
      return (await client.query(text, params)).rows as T[];
    },
    async run(text) {
      await client.query(text);
    },
    async *copyOut(table, columns) {
      const stream = client.query(copyTo(`copy ${table} (${columns.join(', ')}) to stdout`));
      for await (const piece of stream) yield piece as Buffer;
    },
    async copyIn(copy, data) {
      const stream = client.query(copyFrom(`${copy} from stdin`));
      const done = new Promise<void>((resolve, reject) => {
        stream.once('finish', resolve);
        stream.once('error', reject);
      });
      try {
        for await (const piece of data) if (!stream.write(piece)) await Promise.race([once(stream, 'drain'), done]);
      } catch (err) {
        stream.destroy(err as Error);
        await done.catch(() => undefined);
        throw err;
      }
      stream.end();
      await done;
      return Number(stream.rowCount);
    },
    close: () => client.end(),
  };
}
