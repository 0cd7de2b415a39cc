import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { PassThrough, type Readable } from 'node:stream';
import { Worker } from 'node:worker_threads';
import { conflict } from '../errors.js';
import type { CopyTimes } from '../db/embedded-snapshot.js';
import type { Logger } from '../logger.js';
import { threadBoot } from '../thread-boot.js';
import { type DumpMessage, type DumpSource, TAKEN } from './dump-worker.js';

export interface BackupDeps {
  /** The embedded database's online copy (Database.copyOnline); absent on PostgreSQL, read in place. */
  copyOnline: ((into: string) => Promise<CopyTimes>) | undefined;
  /** PostgreSQL's, read in place in a transaction of the backup's own. */
  databaseUrl: string | undefined;
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

const WORKER = threadBoot('dump-worker', import.meta.url);

/**
 * Backups while the server serves, one at a time. On the embedded database the data directory is
 * first copied consistent (Database.copyOnline), then a thread of its own opens the copy, dumps
 * it and is gone, the copy with it; on PostgreSQL that thread reads the database in one
 * repeatable-read transaction. Either way the server's thread does no dump work (a thread, not
 * a process: forking a server holding a large database stalled its event loop for 15–45 ms).
 */
export class Backups {
  /** The copy under way, then the dump's thread. */
  private running: Promise<unknown> | Worker | undefined;
  /** Settles once the dump's thread has ended and the copy it read is deleted. */
  private cleaned: Promise<unknown> = Promise.resolve();

  constructor(private readonly deps: BackupDeps) {}

  /** Begins a backup; resolves once its first bytes are made (a failure before is thrown, not streamed). */
  async start(): Promise<Backup> {
    if (this.running !== undefined) throw conflict('A backup is already under way: try again once it is done.');
    let copied = () => {};
    this.running = new Promise<void>((resolve) => (copied = resolve));
    const name = `engage-backup-${new Date().toISOString().replace(/[:.]/g, '-')}.sql.gz`;
    let work: string | undefined;
    try {
      let source: DumpSource = { url: this.deps.databaseUrl ?? '' };
      if (this.deps.copyOnline !== undefined) {
        work = await mkdtemp(join(this.deps.workDir, '.engage-backup-'));
        const times = await this.deps.copyOnline(join(work, 'data'));
        this.deps.log.info({ ...times, name }, 'backup: the embedded database copied, now dumped');
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
    if (this.running instanceof Worker) await this.running.terminate();
    await this.cleaned;
  }

  private async dumped(source: DumpSource, work: string | undefined): Promise<Readable> {
    const worker = new Worker(WORKER, { eval: true, workerData: source });
    this.running = worker;
    const body = new PassThrough();
    // The consumer went away: the dump stops.
    body.once('close', () => void worker.terminate());
    let firstPiece = () => {};
    const first = new Promise<void>((resolve) => (firstPiece = resolve));
    const ended = new Promise<Error | undefined>((resolve) => {
      let failure: Error | undefined;
      worker.on('message', (message: DumpMessage) => {
        if ('piece' in message) {
          firstPiece();
          if (body.write(Buffer.from(message.piece))) worker.postMessage(TAKEN);
          else body.once('drain', () => worker.postMessage(TAKEN));
        } else if ('failed' in message) failure = new Error(`the backup's dump failed: ${message.failed}`);
        else body.end();
      });
      worker.once('error', (err) => (failure = err));
      this.cleaned = new Promise<void>((cleaned) =>
        worker.once('exit', () => {
          this.running = undefined;
          resolve(failure ?? (body.writableEnded ? undefined : new Error('the backup was stopped before its end')));
          void (work === undefined ? Promise.resolve() : rm(work, { recursive: true, force: true })).finally(cleaned);
        }),
      );
    });
    // Once the first bytes are made the body is handed over (start() returns it); before, a failure is thrown instead.
    let handedOver = false;
    void first.then(() => (handedOver = true));
    void ended.then((failure) => {
      if (failure === undefined) return;
      if (!body.destroyed) this.deps.log.error({ err: failure }, 'backup failed');
      body.destroy(handedOver ? failure : undefined);
    });
    const failure = await Promise.race([first.then(() => undefined), ended]);
    if (failure !== undefined) throw failure;
    this.deps.log.info('backup: its first bytes are made, the rest follows');
    return body;
  }
}
