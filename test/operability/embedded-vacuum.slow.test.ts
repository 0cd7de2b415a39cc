import { PGlite } from '@electric-sql/pglite';
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { EMBEDDED_OPTIONS } from '../../src/db/embedded.js';
import { DEFERRABLE_PAGES, FREEZE_AGE, LULL_UTILIZATION } from '../../src/db/embedded-vacuum.js';
import { newApp, uid } from '../helpers/api.js';
import { spawnServer, type SpawnedServer } from '../helpers/spawn.js';
import { join, makeRoom, say } from '../chat/helpers.js';
import { freshDataDir } from '../helpers/data-template.js';
import { eventually } from '../webhooks/receiver.js';

/**
 * PGlite runs no autovacuum: the server itself keeps the planner's statistics, vacuums dead row
 * versions and freezes old transaction ids. Checked on the embedded database the server left
 * behind (the dead-row counts live in memory and go with it; the visibility map, which only VACUUM
 * sets, and `relfrozenxid` stay).
 */
const EMBEDDED = { DATABASE_URL: '', REDIS_URL: '', RATE_LIMITS: 'off' };
const dataDir = freshDataDir();
let server: SpawnedServer | undefined;
afterAll(async () => {
  await server?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** Runs the server on the data directory until `ms` after it started, then stops it. */
async function serveFor(ms: number, work: (url: string) => Promise<void>): Promise<void> {
  server = await spawnServer({ DATA_DIR: dataDir, ...EMBEDDED });
  const started = Date.now();
  await work(server.url);
  await new Promise((r) => setTimeout(r, Math.max(0, started + ms - Date.now())));
  await server.stop();
  server = undefined;
}

async function withDatabase<T>(use: (db: PGlite) => Promise<T>): Promise<T> {
  const db = new PGlite(dataDir, EMBEDDED_OPTIONS);
  try {
    return await use(db);
  } finally {
    await db.close();
  }
}

/** The chat_events columns no statement filters, sorts or joins on. */
const LEAN_COLUMNS = [
  'original_body',
  'custom_type',
  'custom_id',
  'custom_payload',
  'custom_field1',
  'custom_field2',
  'custom_tags',
  'reply_to_id',
  'hierarchy',
  'hashtags',
  'reactions',
  'like_count',
  'reply_count',
  'reports',
  'muted_by',
  'edited',
  'added',
  'when_modified',
];

async function table(db: PGlite, name: string) {
  const found = await db.query<{ relpages: number; reltuples: number; relallvisible: number; age: number }>(
    `select relpages, reltuples, relallvisible, age(relfrozenxid) as age from pg_class where oid = $1::regclass`,
    [name],
  );
  return found.rows[0];
}

describe('the embedded database upkeep', () => {
  let roomId = '';

  it('analyses a table once it has grown, and vacuums one that holds dead row versions', async () => {
    // The server looks at its tables 5 s after it starts, then 5 s after it worked or 10 s if it did not.
    await serveFor(16_000, async (url) => {
      const { api } = await newApp({}, url);
      const room = await makeRoom(api, { enableenterandexit: false });
      roomId = room.id;
      const crowd = Array.from({ length: 150 }, () => uid('fan'));
      for (let i = 0; i < crowd.length; i += 50) await Promise.all(crowd.slice(i, i + 50).map((userid) => join(api, room.id, userid)));
      // Leaving deletes a fan's session: 100 dead row versions in a small table that never doubles.
      for (let i = 0; i < 100; i += 50) await Promise.all(crowd.slice(i, i + 50).map((userid) => api.post(`chat/rooms/${room.id}/exit`, { userid })));
      await join(api, room.id, 'talker');
      for (let i = 0; i < 40; i++) await Promise.all(Array.from({ length: 10 }, (_, k) => say(api, room.id, 'talker', `message ${i}.${k}`)));
    });

    await withDatabase(async (db) => {
      // Analysed at least once the table had half the rows it has now (it is analysed again each time it doubles).
      expect((await table(db, 'chat_events'))?.reltuples).toBeGreaterThanOrEqual(200);
      const plan = await db.query<{ 'QUERY PLAN': string }>(
        `explain select id from chat_events where room_id = $1 and seq is not null and seq < $2 and active and not deleted order by seq desc limit 51`,
        [roomId, 1_000_000],
      );
      expect(plan.rows.map((r) => r['QUERY PLAN']).join('\n')).toMatch(/Index Scan Backward using chat_events_feed_idx/);
      // Statistics for the columns statements filter, sort or join on; none for the others (migration 0014), which took a third to a half of ANALYZE's time.
      const analysed = (await db.query<{ attname: string }>(`select attname from pg_stats where schemaname = 'public' and tablename = 'chat_events'`)).rows.map((r) => r.attname);
      expect(analysed).toEqual(expect.arrayContaining(['id', 'app_id', 'room_id', 'seq', 'event_type', 'user_id', 'body', 'ts', 'moderation', 'shadowban', 'active', 'deleted', 'parent_id']));
      expect(analysed.filter((column) => LEAN_COLUMNS.includes(column))).toEqual([]);
      const sessions = await table(db, 'chat_participants');
      // Too small to have doubled from 8 pages: vacuumed for its dead row versions. Only VACUUM sets the visibility map.
      expect(sessions?.relpages).toBeLessThan(8);
      expect(sessions?.relallvisible).toBeGreaterThan(0);
      expect(sessions?.relallvisible).toBe(sessions?.relpages);
    });
  }, 60_000);

  it('freezes a table whose oldest transaction id is older than autovacuum_freeze_max_age', async () => {
    // Two hundred million transactions take days: the table is made to look that old instead (an older relfrozenxid is only more cautious).
    await withDatabase(async (db) => {
      const [next] = (await db.query<{ xid: string }>(`select (txid_current() % 4294967296)::text as xid`)).rows;
      const old = (Number(next?.xid) - FREEZE_AGE - 1_000 + 2 ** 32) % 2 ** 32;
      // One of ours, and a catalog: every table of the database counts.
      await db.query(`update pg_class set relfrozenxid = $1::text::xid where oid in ('chat_events'::regclass, 'pg_description'::regclass)`, [String(old)]);
      expect((await table(db, 'chat_events'))?.age).toBeGreaterThan(FREEZE_AGE);
      expect((await table(db, 'pg_description'))?.age).toBeGreaterThan(FREEZE_AGE);
    });

    await serveFor(7_000, async () => {});

    await withDatabase(async (db) => {
      const events = await table(db, 'chat_events');
      expect(events?.age).toBeLessThan(10_000);
      // Every row frozen: relfrozenxid moved past the transaction that wrote the newest row (a vacuum that froze nothing stops at the oldest).
      const [newest] = (await db.query<{ age: number }>(`select min(age(xmin)) as age from chat_events`)).rows;
      expect(events?.age).toBeLessThanOrEqual(newest?.age ?? -1);
      expect(events?.relallvisible).toBe(events?.relpages);
      expect((await table(db, 'pg_description'))?.age).toBeLessThan(10_000);
    });
  }, 60_000);

  it('waits for a lull to analyse a large table again while a crowd keeps the serving thread busy', async () => {
    const lullDir = freshDataDir();
    const busyServer = await spawnServer({ DATA_DIR: lullDir, ...EMBEDDED, LOG_LEVEL: 'debug' });
    /** The server's upkeep of chat_events as it logged it: analyses put off, and work done. */
    const upkeep = () =>
      busyServer
        .stdout()
        .split('\n')
        .filter((line) => line.includes('"table":"chat_events"'))
        .map((line) => JSON.parse(line) as { msg: string; time: number; pages: number; busy?: number });
    try {
      const { api } = await newApp({}, busyServer.url);
      const room = await makeRoom(api, { enableenterandexit: false });
      await join(api, room.id, 'talker');
      // Long bodies fill the table's pages quickly: it passes DEFERRABLE_PAGES, is analysed, and doubles again.
      const padding = 'x'.repeat(600);
      let posting = true;
      const crowd = Promise.all(
        Array.from({ length: 24 }, async (_, worker) => {
          for (let i = 0; posting; i++) await say(api, room.id, 'talker', `message ${worker}.${i} ${padding}`);
        }),
      );
      let waited: { time: number; pages: number; busy?: number } | undefined;
      try {
        waited = await eventually(
          async () => upkeep().find((entry) => entry.msg === 'embedded table analysis waits for a lull'),
          (entry) => entry !== undefined,
          120_000,
        );
        // Two more looks (one each 5 s) under the crowd.
        await new Promise((r) => setTimeout(r, 11_000));
      } finally {
        posting = false;
        await crowd;
      }
      const quietFrom = Date.now();
      expect(waited?.pages).toBeGreaterThanOrEqual(DEFERRABLE_PAGES);
      expect(waited?.busy).toBeGreaterThanOrEqual(LULL_UTILIZATION);
      // Nothing analysed the table while the crowd went on.
      expect(upkeep().filter((entry) => entry.msg === 'embedded table vacuumed' && entry.time > (waited?.time ?? 0))).toEqual([]);
      const analysed = await eventually(
        async () => upkeep().find((entry) => entry.msg === 'embedded table vacuumed' && entry.time > quietFrom),
        (entry) => entry !== undefined,
        30_000,
      );
      expect(analysed?.pages).toBe(waited?.pages);
    } finally {
      await busyServer.stop();
      rmSync(lullDir, { recursive: true, force: true });
    }
  }, 240_000);
});
