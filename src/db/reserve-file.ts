import { stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '../logger.js';
import { freeSpace, writeFilled } from './free-space.js';

/** The file, in the embedded database's directory, that holds the reserve. */
export const RESERVE_FILE = 'engage-reserve';

/**
 * Disk space the server holds for itself (STORAGE_RESERVE bytes in DATA_DIR/engage-reserve), so
 * that it can start on a disk something else filled: the embedded database must write to open
 * (the WAL it replays after a crash, the checkpoint that ends the replay, a migration), and on a
 * disk with no byte left it aborts. A start on a disk with less than the reserve free gives the
 * file back first (`releaseIfShort`); the server then serves reads and refuses writes until
 * there is room to hold the reserve again (`holdIfRoom`) and the reserve besides (StorageGuard).
 */
export class ReserveFile {
  private readonly path: string;
  private held: boolean | undefined;

  constructor(
    private readonly dataDir: string,
    private readonly bytes: number,
    private readonly log: Logger,
  ) {
    this.path = join(dataDir, RESERVE_FILE);
  }

  /** Whether the reserve is on disk, whole (a reserve of 0 bytes, a command-line tool's, always is). */
  async isHeld(): Promise<boolean> {
    if (this.bytes === 0) return true;
    this.held ??= await stat(this.path).then(
      (s) => s.size >= this.bytes,
      () => false,
    );
    return this.held;
  }

  /** Before the database opens: on a disk with less than the reserve free, the reserve is given back. */
  async releaseIfShort(): Promise<void> {
    if (!(await this.isHeld())) return;
    const { bytes } = await freeSpace(this.dataDir);
    if (bytes >= this.bytes) return;
    await unlink(this.path);
    this.held = false;
    this.log.error({ freeBytes: bytes, reserveBytes: this.bytes }, 'starting on a full disk: the reserve is given back to the database; writes are refused until it can be held again');
  }

  /** Takes the reserve again when `freeBytes` leaves room for it and as much again: true once held. */
  async holdIfRoom(freeBytes: number): Promise<boolean> {
    if (await this.isHeld()) return true;
    if (freeBytes < 2 * this.bytes) return false;
    try {
      await writeFilled(this.path, this.bytes);
      this.held = true;
    } catch (err) {
      this.log.warn({ err }, 'could not write the storage reserve; trying again later');
    }
    return this.held === true;
  }
}
