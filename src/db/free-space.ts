import { randomBytes } from 'node:crypto';
import { open, statfs, unlink } from 'node:fs/promises';
import { join } from 'node:path';

/** What the filesystem holding a directory has left for an unprivileged writer. */
export interface FreeSpace {
  bytes: number;
  /** Files that may still be made; Infinity where the filesystem counts none (btrfs, some network filesystems). */
  inodes: number;
}

export async function freeSpace(dir: string): Promise<FreeSpace> {
  const s = await statfs(dir);
  return { bytes: s.bavail * s.bsize, inodes: s.files === 0 ? Number.POSITIVE_INFINITY : s.ffree };
}

/** Bytes written at a time (so the event loop is never held for long). */
const CHUNK_BYTES = 1024 * 1024;

/**
 * Writes `bytes` of random data (so no filesystem can compress or share its blocks) to `path`
 * and flushes it to disk: the file takes that much space, or the write fails (ENOSPC) and
 * leaves nothing behind.
 */
export async function writeFilled(path: string, bytes: number): Promise<void> {
  const file = await open(path, 'w');
  try {
    const chunk = randomBytes(Math.min(CHUNK_BYTES, bytes));
    for (let written = 0; written < bytes; written += chunk.length) await file.write(chunk, 0, Math.min(chunk.length, bytes - written));
    await file.sync();
  } catch (err) {
    await file.close();
    await unlink(path).catch(() => undefined);
    throw err;
  }
  await file.close();
}

/** Bytes the space probe writes: that much must fit before writes resume. */
const PROBE_BYTES = 4 * 1024 * 1024;

/** Throws when `dir`'s filesystem cannot take PROBE_BYTES more for this process (a full disk, a quota, no inodes left). */
export async function probeDirSpace(dir: string): Promise<void> {
  const path = join(dir, 'engage-space-probe');
  await writeFilled(path, PROBE_BYTES);
  await unlink(path);
}
