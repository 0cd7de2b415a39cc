import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, newApp } from '../helpers/api.js';
import { spawnServer, type SpawnedServer } from '../helpers/spawn.js';
import { testPostgres, type Postgres } from '../chat/postgres.js';
import { eventually, freshDatabase } from './infra.js';
import { fanVisit, PATIENT_WEBHOOKS, LoadLog, missingSummary, readBack, redeliveries, setUpScene, undelivered, type Scene } from './mixed-load.js';
import { PgBouncer } from './pgbouncer.js';

/** Errors and worse in a server's pino output. */
const ERROR_LINE = /"level":(50|60)/;

/**
 * Two server processes on one fresh database reached only through a real PgBouncer in transaction
 * mode (pool 20), DATABASE_POOLER=transaction: each transaction may land on another server connection.
 */
describe('behind PgBouncer in transaction mode', () => {
  let postgres: Postgres;
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let bouncer: PgBouncer;
  const nodes: SpawnedServer[] = [];

  beforeAll(async () => {
    postgres = await testPostgres();
    database = await freshDatabase(postgres.url);
    bouncer = await PgBouncer.start(postgres.url, 20);
    // Started together: both migrate the fresh database through the pooler, one at a time.
    const env = { DATABASE_URL: bouncer.urlOf(database.url), DATABASE_POOLER: 'transaction', ...PATIENT_WEBHOOKS };
    nodes.push(...(await Promise.all([spawnServer(env), spawnServer(env)])));
  }, 120_000);

  afterAll(async () => {
    for (const n of nodes) await n.stop();
    await bouncer?.stop();
    await database?.drop();
    postgres?.stop();
  });

  it('answers the mixed load of joins, posts, likes, comments and votes with only 200s, delivers every webhook and logs no error', async () => {
    const [a, b] = nodes as [SpawnedServer, SpawnedServer];
    const app = await newApp({}, a.url);
    const scene: Scene = await setUpScene(app.api);
    const viaB: Scene = { ...scene, api: new Client(b.url, app.appid, app.token) };
    const log = new LoadLog();
    // 300 fans, 30 at a time, half on each node: 300 joins, 2,000 posts, 300 likes, comments and votes.
    const fans = Array.from({ length: 300 }, (_, i) => i);
    for (let i = 0; i < fans.length; i += 30) {
      await Promise.all(fans.slice(i, i + 30).map((n) => fanVisit(n % 2 === 0 ? scene : viaB, log, n < 200 ? 7 : 6, 30_000)));
    }
    expect(log.failures).toEqual([]);
    expect(log.statuses()).toEqual({ 200: 300 * 4 + 2000 });
    const none = { join: 0, post: 0, like: 0, comment: 0, vote: 0 };
    expect(await readBack(database.url, scene, log)).toEqual({ lost: none, duplicated: none });

    // Reads through the prepared statements of comments and chat, on both nodes.
    for (const api of [scene.api, viaB.api]) {
      const page = await api.get(`comment/conversations/${scene.conversationid}/comments?limit=50`);
      expect(page.status).toBe(200);
      expect(page.body.data.comments).toHaveLength(50);
      const standings = await api.get(`poll/poll/${scene.pollid}/standings`);
      expect(standings.body.data.totalresponses).toBe(300);
      expect((await api.get(`chat/rooms/${scene.roomid}/updates?limit=100`)).body.data.events).toHaveLength(100);
    }

    await eventually(async () => undelivered(scene, log).length === 0, 90_000, 'every webhook').catch(() => undefined);
    expect(missingSummary(undelivered(scene, log))).toEqual({});
    console.log(`webhook deliveries repeated (at least once, deduplicated by event id): ${redeliveries(scene)}`);
    for (const node of nodes)
      expect(
        node
          .output()
          .split('\n')
          .filter((line) => ERROR_LINE.test(line)),
      ).toEqual([]);
  }, 240_000);

  it('says ready through the pooler', async () => {
    for (const node of nodes) {
      const ready = await fetch(`${node.url}/readyz`);
      expect(ready.status).toBe(200);
    }
  });
});
