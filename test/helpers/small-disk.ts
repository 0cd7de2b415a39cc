import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statfsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const MB = 2 ** 20;

/** Mounting a filesystem takes root, as CI (.ci/run) runs. */
export const CAN_MOUNT = process.getuid?.() === 0;

/** A filesystem of its own for a test to fill: an ext4 image in a file, loop-mounted. */
export interface SmallDisk {
  /** Where it is mounted. */
  dir: string;
  /** Bytes free now (for any user: no blocks are kept for root). */
  free(): number;
  /** Something else fills the disk: files of its own (outside `dir`'s subdirectories) until only `leaveBytes` are free (about: within a megabyte; 0 is every byte). */
  fillTo(leaveBytes: number): void;
  /** The files fillTo made are deleted: the space returns. */
  freeUp(): void;
  /** Unmounts it and deletes the image. */
  remove(): void;
}

export function smallDisk(megabytes: number): SmallDisk {
  const root = mkdtempSync(join(tmpdir(), 'small-disk-'));
  // Other accounts (a private Postgres' own) may work in it.
  chmodSync(root, 0o755);
  const image = join(root, 'disk.img');
  const dir = join(root, 'mnt');
  mkdirSync(dir);
  execFileSync('truncate', ['-s', `${megabytes}M`, image]);
  execFileSync('mkfs.ext4', ['-q', '-F', '-m', '0', image]);
  execFileSync('mount', ['-o', 'loop', image, dir]);
  const fillers: string[] = [];
  const free = () => {
    const s = statfsSync(dir);
    return s.bavail * s.bsize;
  };
  return {
    dir,
    free,
    fillTo(leaveBytes) {
      const filler = () => {
        const path = join(dir, `filler-${fillers.length}`);
        fillers.push(path);
        return path;
      };
      // The file's own extent map takes blocks too: a little less is asked for until it fits.
      for (let bytes = free() - leaveBytes; bytes > 0; bytes -= MB) {
        if (spawnSync('fallocate', ['-l', String(bytes), filler()]).status === 0) break;
      }
      // The last bytes, block by block, until the disk refuses one.
      if (leaveBytes === 0) spawnSync('dd', ['if=/dev/zero', `of=${filler()}`, 'bs=4096']);
    },
    freeUp() {
      for (const filler of fillers.splice(0)) rmSync(filler, { force: true });
    },
    remove() {
      execFileSync('umount', ['-l', dir]);
      rmSync(root, { recursive: true, force: true });
    },
  };
}
