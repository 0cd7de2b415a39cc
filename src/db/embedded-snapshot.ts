import { constants } from 'node:fs';
import { copyFile, mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { nextTurn } from '../next-turn.js';

/** The replication slot that keeps the WAL a copy needs (temporary: the session's end drops it, a crash included). */
const SLOT = 'engage_backup';
/** What a copy of a data directory leaves out (pg_basebackup's list): made anew, or of the running server only. */
const LEFT_OUT = new Set(['postmaster.pid', 'postmaster.opts', 'backup_label', 'tablespace_map', 'engage.lock']);
/** Directories whose contents a copy leaves out (the WAL is copied apart, at the end). */
const EMPTIED = new Set(['pg_wal', 'pg_replslot', 'pg_stat_tmp', 'pg_dynshmem', 'pg_notify', 'pg_serial', 'pg_snapshots', 'pg_subtrans']);
const WAL_FILE = /^[0-9A-F]{24}$/;
/** Dirty buffers written out per statement before the backup's checkpoint (256 of 8 KB: a few milliseconds)… */
const FLUSH_SLICE = 256;
/** …in at most this many statements (twice the 32 MB of buffers: writes go on meanwhile). */
const FLUSH_SLICES = 32;

/**
 * Copies the embedded database in `dataDir` into the empty directory `into` while the server goes
 * on serving, as pg_basebackup copies a running PostgreSQL: between pg_backup_start and
 * pg_backup_stop the files are copied as they are (a page torn by a write made meanwhile is
 * mended from the WAL, which holds a full image of every page changed during a backup), then the
 * WAL written since the start, and the backup label that tells the copy where its recovery
 * begins. Opened, the copy recovers to the end of that WAL: every transaction committed before
 * the copy's end, and so every write acknowledged before it began.
 *
 * The files are copied off the event loop (libuv's threads; a copy-on-write clone where the file
 * system has it). On the serving thread, the database writes its changed buffers out a slice at a
 * time, the event loop free between slices, so that pg_backup_start's checkpoint has little left
 * to write: it took 40–115 ms with 32 MB of buffers changed, about 10 ms after.
 */
export async function copyEmbeddedOnline(client: PGlite, dataDir: string, into: string): Promise<CopyTimes> {
  const held = new Holds();
  const one = async <T>(statement: string, params: unknown[] = []) => (await held.run(() => client.query<T>(statement, params))).rows[0];
  await one('select pg_create_physical_replication_slot($1, true, true)', [SLOT]);
  try {
    const slice = `select count(*)::int as n from (select pg_buffercache_evict(bufferid) from pg_buffercache where isdirty limit ${FLUSH_SLICE}) written`;
    for (let i = 0; i < FLUSH_SLICES && ((await one<{ n: number }>(slice))?.n ?? 0) === FLUSH_SLICE; i++);
    const started = await one<{ file: string }>(`select pg_walfile_name(pg_backup_start('engage-server backup', true)) as file`);
    const checkpointMs = held.last;
    let label: string | undefined;
    const copying = performance.now();
    try {
      await copyTree(dataDir, into);
    } finally {
      label = (await one<{ labelfile: string }>('select labelfile from pg_backup_stop(false)'))?.labelfile;
    }
    if (started === undefined || label === undefined) throw new Error('pg_backup_start or pg_backup_stop answered nothing');
    const current = await one<{ file: string }>('select pg_walfile_name(pg_current_wal_insert_lsn()) as file');
    await copyWal(join(dataDir, 'pg_wal'), join(into, 'pg_wal'), started.file, current?.file ?? started.file);
    await writeFile(join(into, 'backup_label'), label);
    return { checkpointMs, longestHoldMs: held.longest, copyMs: Math.round(performance.now() - copying) };
  } finally {
    await one('select pg_drop_replication_slot($1)', [SLOT]).catch(() => undefined);
  }
}

/** What an online copy needs of the database, made at start (the first time, some 50 ms: before anything is served). */
export async function prepareOnlineCopies(client: PGlite): Promise<void> {
  await client.exec('create extension if not exists pg_buffercache');
}

/** How long the copy held the serving thread: its checkpoint, and the longest of all its statements (milliseconds). */
export interface CopyTimes {
  checkpointMs: number;
  longestHoldMs: number;
  copyMs: number;
}

/**
 * Runs the copy's statements one per turn of the event loop (PGlite answers without giving the
 * loop a turn, so statements run back to back would hold it for their sum) and times each: the
 * database's work runs on the serving thread.
 */
class Holds {
  last = 0;
  longest = 0;

  async run<T>(statement: () => Promise<T>): Promise<T> {
    await nextTurn();
    const started = performance.now();
    try {
      return await statement();
    } finally {
      this.last = Math.round(performance.now() - started);
      this.longest = Math.max(this.longest, this.last);
    }
  }
}

async function copyTree(from: string, to: string): Promise<void> {
  await mkdir(to, { recursive: true });
  for (const entry of await readdir(from, { withFileTypes: true })) {
    if (LEFT_OUT.has(entry.name)) continue;
    const source = join(from, entry.name);
    const target = join(to, entry.name);
    if (entry.isDirectory()) {
      if (EMPTIED.has(entry.name)) await mkdir(target, { recursive: true });
      else await copyTree(source, target);
    } else if (entry.isFile()) {
      await copyFile(source, target, constants.COPYFILE_FICLONE).catch(unlessGone);
    }
  }
}

/** The WAL segments from the backup's start to the one written now (the slot kept them). */
async function copyWal(from: string, to: string, first: string, last: string): Promise<void> {
  await mkdir(join(to, 'archive_status'), { recursive: true });
  for (const name of (await readdir(from)).sort()) {
    if (WAL_FILE.test(name) && name >= first && name <= last) await copyFile(join(from, name), join(to, name), constants.COPYFILE_FICLONE);
  }
}

/** A file dropped while the copy ran (a table dropped, a temporary file) is one the copy does not need. */
function unlessGone(err: NodeJS.ErrnoException): void {
  if (err.code !== 'ENOENT') throw err;
}
