import { tmpdir } from 'node:os';
import type { Area, Core } from '../core.js';
import { backupRoutes } from './routes.js';
import { scheduleBackups } from './schedule.js';
import { Backups } from './service.js';

/** Backups while serving: POST /api/v3/manage/backups, and the schedule when BACKUP_DIR is set. */
export function backupArea(core: Core): Area {
  const { config, database, log } = core;
  const backups = new Backups({
    copyOnline: database.copyOnline,
    databaseUrl: config.databaseUrl,
    workDir: config.backups.workDir ?? config.backups.dir ?? tmpdir(),
    log,
  });
  const stopSchedule = config.backups.dir === undefined ? undefined : scheduleBackups(backups, { ...config.backups, dir: config.backups.dir }, log);
  return {
    routes: backupRoutes(backups),
    async close() {
      const scheduled = stopSchedule?.();
      await backups.close();
      await scheduled;
    },
  };
}
