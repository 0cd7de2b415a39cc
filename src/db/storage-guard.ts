import { type DomainError, insufficientStorage } from '../errors.js';
import type { Logger } from '../logger.js';
import { repeatWork } from '../repeated-work.js';
import { storageMetrics } from '../metrics/registry.js';
import { isOutOfSpace } from './errors.js';
import { freeSpace } from './free-space.js';
import type { ReserveFile } from './reserve-file.js';

/** How often the embedded database's disk is looked at: a write is refused at most this long after the reserve is reached. */
const WATCH_MS = 200;
/** While the storage is full, how often it is tried again (Postgres: a write that needs fresh space). */
const PROBE_MS = 1_000;
/** Writes resume only once this share of the reserve is free besides it, so a trickle of freed space does not flap the state. */
const RESUME_MARGIN = 0.25;
/** A filesystem with fewer files left than this is full: Postgres makes a file per 1 GB of each table and index, and per WAL segment. */
const MIN_INODES = 1_000;

/** Where the state watches the disk from, on the embedded database: its directory and the reserve held there. */
export interface WatchedDisk {
  dataDir: string;
  reserve: ReserveFile;
}

export interface StorageGuardOptions {
  log: Logger;
  /** STORAGE_RESERVE: writes are refused while less than this is free (and, embedded, held as the reserve file). */
  reserveBytes: number;
  /** The embedded database's disk; undefined on Postgres, whose disk this process cannot see. */
  disk?: WatchedDisk;
  /** A write that needs fresh disk space: throws when there is none. */
  probe: () => Promise<void>;
}

/**
 * Out of space is a state, not a wedge. While the database's disk is full the server refuses
 * writes (507, see docs/errors.md) before they reach the database, and serves everything else;
 * /healthz says why, /readyz says 503, and one line is logged when the state begins and one when
 * it ends. It begins when the embedded database's disk has less than the reserve free (watched
 * every WATCH_MS, so the database never meets the end of the disk: PGlite cannot survive that,
 * see embedded-aborts.ts), or when any statement fails for want of space (Postgres' 53100). It
 * ends by itself once a probe write that needs fresh space succeeds (embedded: once the disk has
 * the reserve and a margin free again), with no restart. Background writers ask `mayWrite`.
 */
export class StorageGuard {
  private fullSince: number | undefined;
  private why = '';
  private stopLooking: () => Promise<void> = () => Promise.resolve();
  private lastProbe = Number.NEGATIVE_INFINITY;
  private readonly resumeBytes: number;

  constructor(private readonly options: StorageGuardOptions) {
    this.resumeBytes = options.reserveBytes * (1 + RESUME_MARGIN);
  }

  get full(): boolean {
    return this.fullSince !== undefined;
  }

  /** Why writes are refused, as /healthz tells anyone (no paths, no statements); empty while they are not. */
  get reason(): string {
    return this.why;
  }

  /** Whether work that writes may run now (background writers skip a turn otherwise). */
  mayWrite(): boolean {
    return this.fullSince === undefined;
  }

  /** The refusal a write gets while the storage is full, or undefined. */
  refusal(): DomainError | undefined {
    if (this.fullSince === undefined) return undefined;
    storageMetrics.refused.inc();
    return insufficientStorage("The server's storage is full: writes are refused until space is freed; reads go on.");
  }

  /** Told of a failed statement: true, and the state begins (if it had not), when it failed for want of space. */
  failed(err: unknown): boolean {
    if (!isOutOfSpace(err)) return false;
    if (this.fullSince === undefined) this.begin('the database could not write for want of disk space', { err });
    return true;
  }

  /**
   * Looks at the disk now, so the state is right before the first request (Postgres: one probe,
   * so that a start on a full disk says so before a write meets it), then keeps looking.
   */
  async start(): Promise<void> {
    await (this.options.disk === undefined ? this.probe() : this.look());
    this.stopLooking = repeatWork(
      () => (this.options.disk !== undefined ? WATCH_MS : PROBE_MS),
      () => this.look(),
      (err) => this.options.log.warn({ err }, 'looking at the storage failed'),
    );
  }

  /** Stops looking, once a look under way has ended. */
  stop(): Promise<void> {
    return this.stopLooking();
  }

  private async look(): Promise<void> {
    const { disk } = this.options;
    // Embedded, the disk tells whether there is room; on Postgres only a write can, and only while the state holds.
    if (disk !== undefined && !(await this.diskHasRoom(disk))) return;
    if (this.fullSince === undefined || performance.now() - this.lastProbe < PROBE_MS) return;
    await this.probe();
  }

  /** Embedded: begins the state when the disk is short, takes the reserve back when it can; true when writes could go on. */
  private async diskHasRoom(disk: WatchedDisk): Promise<boolean> {
    const { bytes, inodes } = await freeSpace(disk.dataDir);
    storageMetrics.freeBytes.value = bytes;
    const wasHeld = await disk.reserve.isHeld();
    const held = wasHeld || (await disk.reserve.holdIfRoom(bytes));
    // What is free once the reserve is held (`bytes` was read before it was taken again, if it just
    // was; a start on a full disk gives it back).
    const usable = wasHeld ? bytes : bytes - this.options.reserveBytes;
    const wanted = this.fullSince === undefined ? this.options.reserveBytes : this.resumeBytes;
    if (usable >= wanted && inodes >= MIN_INODES) return true;
    if (this.fullSince === undefined) {
      const mb = (n: number) => `${Math.max(0, Math.floor(n / 2 ** 20))} MB`;
      const what = inodes < MIN_INODES ? `${inodes} files left` : `${mb(usable)} free${held ? '' : ' with the reserve given back'}`;
      this.begin(`the database's disk has ${what}, under STORAGE_RESERVE=${mb(this.options.reserveBytes)}`, { dataDir: disk.dataDir, freeBytes: bytes, inodes, reserveHeld: held });
    }
    return false;
  }

  private async probe(): Promise<void> {
    this.lastProbe = performance.now();
    try {
      await this.options.probe();
    } catch (err) {
      if (!this.failed(err)) this.options.log.warn({ err }, 'the storage probe failed');
      return;
    }
    if (this.fullSince !== undefined) this.end();
  }

  private begin(reason: string, details: Record<string, unknown>): void {
    this.fullSince = performance.now();
    this.why = reason;
    storageMetrics.full.value = 1;
    storageMetrics.episodes.inc();
    this.options.log.error({ ...details, reason, reserveBytes: this.options.reserveBytes }, 'storage full: writes are refused until space is freed; reads go on');
  }

  private end(): void {
    const seconds = Math.round((performance.now() - (this.fullSince as number)) / 100) / 10;
    this.fullSince = undefined;
    this.why = '';
    storageMetrics.full.value = 0;
    this.options.log.error({ seconds }, 'storage has room again: writes are accepted');
  }
}
