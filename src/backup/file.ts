import { createReadStream } from 'node:fs';
import { pipeline } from 'node:stream';
import { open } from 'node:fs/promises';
import { createGunzip } from 'node:zlib';
import { FORMAT_LINE } from './format.js';
import { RestoreRefused } from './refusal.js';

const GZIP_MAGIC = Buffer.from([0x1f, 0x8b]);
const PG_DUMP_ARCHIVE = Buffer.from('PGDMP');
const PLAIN = Buffer.from(FORMAT_LINE);

/**
 * A backup file's text: gunzipped when it is gzipped (as the server writes it), as it is when an
 * operator unpacked it. A file of another kind is refused before anything is read of it, a
 * pg_dump archive with a word on what restores it.
 */
export async function backupText(path: string): Promise<AsyncIterable<Buffer>> {
  const head = Buffer.alloc(PLAIN.length);
  let read: number;
  try {
    const file = await open(path, 'r');
    try {
      ({ bytesRead: read } = await file.read(head, 0, head.length, 0));
    } finally {
      await file.close();
    }
  } catch (err) {
    throw new RestoreRefused(`Cannot read ${path}: ${(err as Error).message}`);
  }
  const starts = (magic: Buffer) => read >= magic.length && head.compare(magic, 0, magic.length, 0, magic.length) === 0;
  // pipeline: a read error reaches the reader through the gunzip stream.
  if (starts(GZIP_MAGIC)) return pipeline(createReadStream(path), createGunzip(), () => undefined);
  if (starts(PLAIN)) return createReadStream(path);
  if (starts(PG_DUMP_ARCHIVE))
    throw new RestoreRefused(`${path} is a pg_dump archive, not an engage-server backup: restore it with pg_restore (docs/production-postgres.md, Backups). Nothing was restored.`);
  throw new RestoreRefused(`${path} is not an engage-server backup (neither gzip nor a backup's text). Nothing was restored.`);
}
