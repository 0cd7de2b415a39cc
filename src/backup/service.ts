import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { setPriority } from 'node:os';
import { join } from 'node:path';
import { PassThrough, type Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { conflict } from '../errors.js';
import type { Logger } from '../logger.js';

export interface BackupDeps {
  /** The embedded database's online copy (Database.copyOnline); absent on PostgreSQL, read in place. */
  copyOnline: ((into: string) => Promise<void>) | undefined;
  /** Where an embedded database's copy is made for the time a backup takes. */
  workDir: string;
  log: Logger;
}

export interface Backup {
  /** The file's name: when it was begun. */
  name: string;
  /** The gzipped backup, as the dump makes it. */
  body: Readable;
}

/** The dump runs at this niceness, so the server's own work comes first on a busy machine. */
const DUMP_NICENESS = 10;
/** Of a failed dump's standard error, this much is kept for its message. */
const STDERR_KEPT = 4096;
const CHILD = fileURLToPath(new URL(import.meta.url.endsWith('.ts') ? './dump-child.ts' : './dump-child.js', import.meta.url));

/**
 * Backups while the server serves, one at a time. On the embedded database the data directory is
 * first copied consistent (Database.copyOnline), then a process of its own opens the copy,
 * dumps it and is gone, the copy with it; on PostgreSQL that process reads the database in one
 * repeatable-read transaction. Either way the server's thread does no dump work.
 */
export class Backups {
  /** The copy under way, then the dump's process. */
  private running: Promise<unknown> | ChildProcess | undefined;

  constructor(private readonly deps: BackupDeps) {}

  /** Begins a backup; resolves once its first bytes are made (a failure before is thrown, not streamed). */
  async start(): Promise<Backup> {
    if (this.running !== undefined) throw conflict('A backup is already under way: try again once it is done.');
    let copied = () => {};
    this.running = new Promise<void>((resolve) => (copied = resolve));
    const name = `engage-backup-${new Date().toISOString().replace(/[:.]/g, '-')}.sql.gz`;
    let work: string | undefined;
    try {
      let source = {};
      if (this.deps.copyOnline !== undefined) {
        work = await mkdtemp(join(this.deps.workDir, '.engage-backup-'));
        await this.deps.copyOnline(join(work, 'data'));
        source = { dir: join(work, 'data') };
      }
      copied();
      return { name, body: await this.dumped(source, work) };
    } catch (err) {
      copied();
      this.running = undefined;
      if (work !== undefined) await rm(work, { recursive: true, force: true });
      throw err;
    }
  }

  /** Stops a backup under way (the server is stopping): a copy is let finish, a dump ended. */
  async close(): Promise<void> {
    const running = this.running;
    if (running instanceof Promise) await running;
    if (this.running instanceof Promise || this.running === undefined) return;
    const child = this.running;
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('close', resolve));
  }

  private async dumped(source: { dir?: string }, work: string | undefined): Promise<Readable> {
    const child = spawn(process.execPath, [...process.execArgv, CHILD], {
      env: { ...process.env, ENGAGE_BACKUP_SOURCE: JSON.stringify(source) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.running = child;
    if (child.pid !== undefined) setPriority(child.pid, DUMP_NICENESS);
    let stderr = '';
    child.stderr?.on('data', (d: Buffer) => {
      stderr = (stderr + d.toString()).slice(-STDERR_KEPT);
    });
    const body = new PassThrough();
    child.stdout?.pipe(body, { end: false });
    // The consumer went away: the dump stops.
    body.once('close', () => child.kill('SIGKILL'));
    const ended = new Promise<Error | undefined>((resolve) => {
      child.once('close', (code, signal) => {
        this.running = undefined;
        void (work === undefined ? undefined : rm(work, { recursive: true, force: true }));
        resolve(code === 0 ? undefined : new Error(`the backup's dump failed (${signal ?? `exit code ${code}`}): ${stderr.trim()}`));
      });
    });
    void ended.then((failure) => {
      if (failure === undefined) body.end();
      else {
        this.deps.log.error({ err: failure }, 'backup failed');
        body.destroy(failure);
      }
    });
    const firstBytes = new Promise<void>((resolve) => child.stdout?.once('data', () => resolve()));
    const failure = await Promise.race([firstBytes.then(() => undefined), ended]);
    if (failure !== undefined) throw failure;
    return body;
  }
}
