/**
 * A backup's dump, run as a process of its own (see Backups): it reads a database whole and
 * gzips it to standard output, with the server's event loop and CPU priority left alone. The
 * source is in ENGAGE_BACKUP_SOURCE: an embedded copy's directory (`{"dir":…}`), or PostgreSQL
 * (`{}`, at DATABASE_URL, kept out of the command line that `ps` shows).
 */
import { pipeline } from 'node:stream/promises';
import { PassThrough } from 'node:stream';
import { createGzip } from 'node:zlib';
import { dump } from './dump.js';
import { openPlace } from './places.js';

/** gzip's fastest level (see docs/backups.md for what it costs in bytes). */
const GZIP_LEVEL = 1;

const source = JSON.parse(process.env['ENGAGE_BACKUP_SOURCE'] ?? '{}') as { dir?: string };
const url = process.env['DATABASE_URL'];
try {
  if (source.dir === undefined && url === undefined) throw new Error('no source: ENGAGE_BACKUP_SOURCE names no directory and DATABASE_URL is unset');
  const session = await openPlace(source.dir !== undefined ? { kind: 'embedded', dir: source.dir } : { kind: 'postgres', url: url as string });
  try {
    const text = new PassThrough({ highWaterMark: 1024 * 1024 });
    const dumped = dump(session, text).then(
      () => text.end(),
      (err: unknown) => {
        text.destroy(err as Error);
        throw err;
      },
    );
    await Promise.all([dumped, pipeline(text, createGzip({ level: GZIP_LEVEL }), process.stdout)]);
  } finally {
    await session.close();
  }
} catch (err) {
  process.stderr.write(`${(err as Error).message}\n`);
  process.exitCode = 1;
}
