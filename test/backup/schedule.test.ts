import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { until } from '../client/stream.js';
import { newApp } from '../helpers/api.js';
import { dropDatabase, freshDatabase, onDatabase } from '../helpers/fresh-database.js';
import { spawnServer, type SpawnedServer } from '../helpers/spawn.js';
import { removeAll } from './helpers.js';

/** BACKUP_DIR, BACKUP_INTERVAL, BACKUP_KEEP: backups written on a schedule, whole, the oldest deleted past the count kept. */
const dir = mkdtempSync(join(tmpdir(), 'engage-scheduled-'));
let database: string | undefined;
let server: SpawnedServer | undefined;

afterAll(async () => {
  await server?.stop();
  await dropDatabase(database);
  removeAll(dir);
});

describe('scheduled backups', () => {
  it('writes a whole backup every interval into BACKUP_DIR and keeps the newest BACKUP_KEEP', async () => {
    database = await freshDatabase(process.env['DATABASE_URL'], 'scheduled_backups');
    server = await spawnServer({ ...onDatabase(database), BACKUP_DIR: dir, BACKUP_INTERVAL: '1', BACKUP_KEEP: '2', LOG_LEVEL: 'info' });
    await newApp({}, server.url);
    const written = () =>
      (server as SpawnedServer)
        .output()
        .split('\n')
        .filter((line) => line.includes('"backup written"')).length;
    await until(() => written() >= 3, 90_000, 'three scheduled backups');
    const files = readdirSync(dir);
    const backups = files.filter((f) => /^engage-backup-.+\.sql\.gz$/.test(f));
    // The next one may have begun (its copy of the data directory, its partial file): only what is whole carries the backup's name.
    expect(files.filter((f) => !backups.includes(f) && !f.endsWith('.partial') && !f.startsWith('.engage-backup-'))).toEqual([]);
    expect(backups.length).toBe(2);
    for (const file of backups) {
      const text = gunzipSync(readFileSync(join(dir, file))).toString();
      expect(text.startsWith('-- engage-server backup 1\n')).toBe(true);
      expect(text).toMatch(/\n-- end: \{"rows":\d+,"sha256":"[0-9a-f]{64}"\}\n$/);
    }
  }, 120_000);
});
