import { PGlite } from '@electric-sql/pglite';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join as joinPath } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EMBEDDED_OPTIONS } from '../../src/db/embedded.js';
import { newApp } from '../helpers/api.js';
import { spawnServer, type SpawnedServer } from '../helpers/spawn.js';
import { join, makeRoom, say } from '../chat/helpers.js';

/**
 * PGlite runs no autovacuum: the server itself keeps the planner's statistics, analysing a table
 * once it has grown. Without them the page of a room's latest events was read by sorting the
 * room's whole history. Checked on the embedded database the server left behind.
 */
const EMBEDDED = { DATABASE_URL: '', REDIS_URL: '', RATE_LIMITS: 'off' };
const dataDir = mkdtempSync(joinPath(tmpdir(), 'engage-statistics-'));
let server: SpawnedServer | undefined;
afterAll(async () => {
  await server?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('the embedded database statistics', () => {
  it('are gathered once a table has grown, and the latest events of a room are then read through the feed index', async () => {
    server = await spawnServer({ DATA_DIR: dataDir, ...EMBEDDED });
    const started = Date.now();
    const { api } = await newApp({}, server.url);
    const room = await makeRoom(api, { enableenterandexit: false });
    await join(api, room.id, 'talker');
    for (let i = 0; i < 40; i++) await Promise.all(Array.from({ length: 10 }, (_, k) => say(api, room.id, 'talker', `message ${i}.${k}`)));
    // The server looks at its tables' sizes 5 s after it starts, then 10 s later if none had grown enough.
    await new Promise((r) => setTimeout(r, Math.max(0, started + 16_000 - Date.now())));
    await server.stop();
    server = undefined;

    const db = new PGlite(dataDir, EMBEDDED_OPTIONS);
    try {
      const table = (await db.query<{ reltuples: number }>(`select reltuples from pg_class where relname = 'chat_events'`)).rows[0];
      // Analysed at least once the table had half the rows it has now (it is analysed again each time it doubles).
      expect(table?.reltuples).toBeGreaterThanOrEqual(200);
      const plan = await db.query<{ 'QUERY PLAN': string }>(
        `explain select id from chat_events where room_id = $1 and seq is not null and seq < $2 and active and not deleted order by seq desc limit 51`,
        [room.id, 1_000_000],
      );
      expect(plan.rows.map((r) => r['QUERY PLAN']).join('\n')).toMatch(/Index Scan Backward using chat_events_feed_idx/);
    } finally {
      await db.close();
    }
  }, 120_000);
});
