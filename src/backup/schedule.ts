import { createWriteStream } from 'node:fs';
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Logger } from '../logger.js';
import type { Backups } from './service.js';

export interface BackupSchedule {
  dir: string;
  intervalSeconds: number;
  /** The newest this many backups are kept; older ones are deleted once a new one is written. */
  keep: number;
}

const BACKUP_FILE = /^engage-backup-.+\.sql\.gz$/;
const PARTIAL = '.partial';
/** A server that starts with no backup as recent as the interval makes one this long after it started (or an interval after, when shorter). */
const FIRST_AFTER_MS = 60_000;
/** setTimeout's longest wait. */
const LONGEST_TIMER_MS = 2 ** 31 - 1;

/**
 * Writes a backup into `dir` every interval (BACKUP_DIR, BACKUP_INTERVAL, BACKUP_KEEP), each first
 * under a `.partial` name and renamed once whole, so that what the directory shows by the backup
 * name is always complete. The first is due an interval after the newest one there (a minute after
 * the start at the soonest, or an interval when that is shorter). Returns the stop, which resolves once a backup under way has ended
 * (stop the backups first: see Backups.close).
 */
export function scheduleBackups(backups: Backups, schedule: BackupSchedule, log: Logger): () => Promise<void> {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let due = 0;
  const wait = () => {
    if (stopped) return;
    timer = setTimeout(tick, Math.min(Math.max(due - Date.now(), 0), LONGEST_TIMER_MS));
    timer.unref();
  };
  const tick = () => {
    if (Date.now() < due) return wait();
    due = Date.now() + schedule.intervalSeconds * 1000;
    running = writeOne(backups, schedule, log).finally(() => {
      running = undefined;
      wait();
    });
  };
  running = firstDue(schedule).then(
    (first) => {
      due = first;
      running = undefined;
      wait();
    },
    (err: unknown) => log.error({ err, dir: schedule.dir }, 'BACKUP_DIR cannot be used: no scheduled backups'),
  );
  return async () => {
    stopped = true;
    clearTimeout(timer);
    await running;
  };
}

/** When the first backup is due; partial files a stop left are removed. */
async function firstDue(schedule: BackupSchedule): Promise<number> {
  await mkdir(schedule.dir, { recursive: true });
  const names = await readdir(schedule.dir);
  for (const name of names.filter((n) => n.endsWith(PARTIAL))) await rm(join(schedule.dir, name), { force: true });
  const newest = names
    .filter((n) => BACKUP_FILE.test(n))
    .sort()
    .at(-1);
  const soonest = Date.now() + Math.min(FIRST_AFTER_MS, schedule.intervalSeconds * 1000);
  if (newest === undefined) return soonest;
  return Math.max(soonest, (await stat(join(schedule.dir, newest))).mtimeMs + schedule.intervalSeconds * 1000);
}

async function writeOne(backups: Backups, schedule: BackupSchedule, log: Logger): Promise<void> {
  const started = performance.now();
  try {
    const backup = await backups.start();
    const file = join(schedule.dir, backup.name);
    await pipeline(backup.body, createWriteStream(file + PARTIAL));
    await rename(file + PARTIAL, file);
    const { size } = await stat(file);
    await prune(schedule);
    log.info({ file, bytes: size, ms: Math.round(performance.now() - started) }, 'backup written');
  } catch (err) {
    log.error({ err, dir: schedule.dir }, 'scheduled backup failed');
    for (const name of (await readdir(schedule.dir).catch(() => [])).filter((n) => n.endsWith(PARTIAL))) await rm(join(schedule.dir, name), { force: true });
  }
}

async function prune(schedule: BackupSchedule): Promise<void> {
  const backups = (await readdir(schedule.dir)).filter((n) => BACKUP_FILE.test(n)).sort();
  for (const name of backups.slice(0, Math.max(0, backups.length - schedule.keep))) await rm(join(schedule.dir, name), { force: true });
}
