import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectPostgres, preparedText } from '../../src/db/client.js';
import { Client, newApp } from '../helpers/api.js';
import { spawnServer, type SpawnedServer } from '../helpers/spawn.js';
import { testPostgres, type Postgres } from '../chat/postgres.js';
import { eventually, freshDatabase } from './infra.js';
import { fanVisit, PATIENT_WEBHOOKS, LoadLog, missingSummary, readBack, redeliveries, setUpScene, undelivered, type Scene } from './mixed-load.js';
import { PgBouncer } from './pgbouncer.js';

/** Errors and worse in a server's pino output. */
const ERROR_LINE = /"level":(50|60)/;
/** What a server says, once per connection pool, when it finds a transaction pooler DATABASE_POOLER does not name. */
const POOLER_ADVICE = 'Set DATABASE_POOLER=transaction';

/**
 * Two server processes on one fresh database reached only through a real PgBouncer in transaction
 * mode (pool 20): each transaction may land on another server connection. Once with
 * DATABASE_POOLER=transaction, once with the setting forgotten: the server finds the pooler itself.
 */
describe.each<{ setting: string; env: Record<string, string> }>([
  { setting: 'DATABASE_POOLER=transaction', env: { DATABASE_POOLER: 'transaction' } },
  { setting: 'DATABASE_POOLER unset', env: {} },
])('behind PgBouncer in transaction mode, $setting', ({ env: poolerEnv }) => {
  let postgres: Postgres;
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let bouncer: PgBouncer;
  const nodes: SpawnedServer[] = [];

  beforeAll(async () => {
    postgres = await testPostgres();
    database = await freshDatabase(postgres.url);
    bouncer = await PgBouncer.start(postgres.url, 20);
    // Started together: both migrate the fresh database through the pooler, one at a time.
    const env = { DATABASE_URL: bouncer.urlOf(database.url), ...poolerEnv, ...PATIENT_WEBHOOKS };
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
    // Without the setting: the advice, at most once for each of a node's two pools (requests, webhook deliveries), and nothing else.
    for (const node of nodes) {
      const errors = node
        .output()
        .split('\n')
        .filter((line) => ERROR_LINE.test(line));
      const advice = errors.filter((line) => line.includes(POOLER_ADVICE));
      expect(errors.filter((line) => !line.includes(POOLER_ADVICE))).toEqual([]);
      if (poolerEnv['DATABASE_POOLER'] === 'transaction') expect(advice).toEqual([]);
      else expect(advice.length).toBeGreaterThanOrEqual(1);
      expect(advice.length).toBeLessThanOrEqual(2);
    }
  }, 240_000);

  it('says ready through the pooler', async () => {
    for (const node of nodes) {
      const ready = await fetch(`${node.url}/readyz`);
      expect(ready.status).toBe(200);
    }
  });
});

/** The pooler not found at start (it handed out another server connection each time): the first statement it refuses switches the pool, is retried, and is said once. */
describe('a pool that meets a transaction pooler it was not told of', () => {
  let postgres: Postgres;
  let bouncer: PgBouncer;

  beforeAll(async () => {
    postgres = await testPostgres();
    bouncer = await PgBouncer.start(postgres.url, 20);
  }, 60_000);

  afterAll(async () => {
    await bouncer?.stop();
    postgres?.stop();
  });

  it('answers every named statement, switching to unnamed ones for good at the first refusal, and logs the advice once', async () => {
    const lines: string[] = [];
    const log = pino(
      { level: 'warn' },
      new Writable({
        write(chunk, _enc, done) {
          lines.push(String(chunk));
          done();
        },
      }),
    );
    const { db, pool } = connectPostgres(bouncer.url, log, { max: 8, name: 'engage-test', pooler: 'none' });
    try {
      // Eight client connections preparing the same names in turn on twenty shared server connections.
      const answers = await Promise.all(Array.from({ length: 400 }, (_, i) => preparedText<{ n: number }>(db, `pooler_probe_${i % 3}`, 'select $1::int + $2::int as n', [i, i % 3])));
      expect(answers.map((r) => r[0]?.n)).toEqual(Array.from({ length: 400 }, (_, i) => i + (i % 3)));
      const advice = lines.filter((line) => line.includes(POOLER_ADVICE));
      expect(advice).toHaveLength(1);
      expect(JSON.parse(advice[0] as string).level).toBe(50);
    } finally {
      await pool.end();
    }
  });
});
