import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PGlite, type PGliteOptions } from '@electric-sql/pglite';
import { pg_buffercache } from '@electric-sql/pglite/contrib/pg_buffercache';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';

/**
 * PGlite's settings with `sharedBufferBytes` of shared buffers (EMBEDDED_SHARED_BUFFERS for the
 * server): they live in PGlite's WebAssembly memory, each resident once touched, and pages beyond
 * them are read back from the operating system's file cache, a system call and a copy each.
 * Durability settings stay as they are. After a checkpoint (the server makes them, see
 * embedded-checkpoints.ts) Postgres keeps at most max_wal_size of WAL files for reuse, and at
 * least min_wal_size: the default 1 GB was a gigabyte of disk held whatever the store's size.
 * pg_trgm is the extension the searches' indexes use on Postgres too (migration 0012);
 * pg_buffercache lets an online backup write the buffers out a slice at a time (see embedded-snapshot.ts).
 */
export function embeddedOptions(sharedBufferBytes: number): PGliteOptions {
  const sharedBuffers = `${Math.floor(sharedBufferBytes / 1024)}kB`;
  return {
    startParams: [...PGlite.defaultStartParams, '-c', `shared_buffers=${sharedBuffers}`, '-c', 'max_wal_size=128MB', '-c', 'min_wal_size=32MB'],
    extensions: { pg_trgm, pg_buffercache },
  };
}

/** A copy of the database opened by a tool (a restore, a move, a bench): 32 MB of buffers, as it reads each page about once. */
export const EMBEDDED_OPTIONS = embeddedOptions(32 * 1024 * 1024);

/**
 * Creates the embedded database cluster in `dataDir` if it has none, in a child process: PGlite's
 * initdb leaves some 500 MB of freed memory with the process that ran it, which the allocator
 * does not give back to the system. Run apart, that memory goes when the child exits.
 */
export async function initEmbeddedCluster(dataDir: string): Promise<void> {
  if (existsSync(join(dataDir, 'PG_VERSION'))) return;
  const pglite = import.meta.resolve('@electric-sql/pglite');
  const script = `const { PGlite } = await import(${JSON.stringify(pglite)}); await new PGlite(process.argv[1]).close();`;
  await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script, dataDir]);
}
