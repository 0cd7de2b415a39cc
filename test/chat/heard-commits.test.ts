import { existsSync } from 'node:fs';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newApp, type TestApp } from '../helpers/api.js';
import { dropDatabase, freshDatabase } from '../helpers/fresh-database.js';
import { spawnServer, type SpawnedServer } from '../helpers/spawn.js';
import { scrapedTotal } from '../operability/prometheus-text.js';
import { eventually } from '../cluster/infra.js';
import { testPostgres, type Postgres } from './postgres.js';
import { makeRoom } from './helpers.js';

const TOKEN = 'heard-commits-metrics-token-0123456789';
/** DATABASE_URL when set (CI), else a throwaway cluster of the local Postgres binaries; with neither, nothing to test. */
const canRun = (process.env['DATABASE_URL'] ?? '') !== '' || existsSync('/usr/lib/postgresql');

/**
 * A single node on Postgres (no Redis) shares its crowd reads per version of what they show, as it
 * hears its commits: its own connections are told by notice what each statement changes, counted
 * before the write is answered, and a change committed by another client reaches it by notification.
 */
describe.runIf(canRun)('a single node on Postgres hears its commits', () => {
  let postgres: Postgres;
  let url: string;
  let server: SpawnedServer;
  let t: TestApp;
  let outside: pg.Client;

  const metric = (name: string, labels: Record<string, string> = {}) => scrapedTotal(server.url, TOKEN, name, labels);
  const details = async (roomId: string) => {
    const res = await t.api.get(`chat/rooms/${roomId}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data;
  };
  beforeAll(async () => {
    postgres = await testPostgres();
    url = (await freshDatabase(postgres.url, 'heard_commits')) as string;
    // A database whose setting would silence the triggers' notices: the node's connections set their own.
    const settings = new pg.Client({ connectionString: url });
    await settings.connect();
    await settings.query(`alter database ${new URL(url).pathname.slice(1)} set client_min_messages = warning`);
    await settings.end();
    server = await spawnServer({ DATABASE_URL: url, REDIS_URL: '', METRICS_TOKEN: TOKEN, RATE_LIMITS: 'off' });
    t = await newApp({}, server.url);
    outside = new pg.Client({ connectionString: url });
    await outside.connect();
  }, 120_000);
  afterAll(async () => {
    await outside?.end();
    await server?.stop();
    await dropDatabase(url);
    postgres?.stop();
  });

  it('reads one after another share the answer with no read of its version, and a change committed by another client reaches the node', async () => {
    const room = await makeRoom(t.api, { enableenterandexit: false });
    await details(room.id);
    const [made, checked] = [
      await metric('engage_shared_answers_total', { cache: 'room_details', result: 'miss' }),
      await metric('engage_shared_answers_total', { cache: 'room_versions', result: 'miss' }),
    ];
    for (let i = 0; i < 10; i++) expect((await details(room.id)).name).toBe(room.name);
    expect(await metric('engage_shared_answers_total', { cache: 'room_details', result: 'miss' })).toBe(made);
    expect(await metric('engage_shared_answers_total', { cache: 'room_versions', result: 'miss' })).toBe(checked);

    // Not through this node: no write of its own to wait for, but the notification arrives.
    await outside.query('update chat_rooms set name = $1 where id = $2', ['Renamed outside', room.id]);
    await eventually(async () => (await details(room.id)).name === 'Renamed outside', 2_000, 'the outside rename is read');
  });

  it("each of the node's writes is heard before it is answered, also on connections made anew after its connections were cut", async () => {
    const room = await makeRoom(t.api, { enableenterandexit: false });
    const renameAndRead = async (round: string) => {
      for (let i = 0; i < 25; i++) {
        const name = `${round} ${i}`;
        expect((await t.api.post(`chat/rooms/${room.id}`, { name })).status).toBe(200);
        expect((await details(room.id)).name).toBe(name);
      }
    };
    await renameAndRead('Before');
    const cut = await outside.query("select pg_terminate_backend(pid) from pg_stat_activity where application_name = 'engage' and datname = current_database()");
    expect(cut.rowCount).toBeGreaterThan(0);
    // The first requests may meet a connection that was cut (503); then the pool connects anew.
    await eventually(async () => (await t.api.post(`chat/rooms/${room.id}`, { name: 'Probe' })).status === 200, 5_000, 'the node writes again');
    await renameAndRead('After');
    const listening = await outside.query("select count(*)::int as n from pg_stat_activity where application_name = 'engage' and datname = current_database()");
    expect(listening.rows[0].n).toBeGreaterThan(0);
  });

  // A cluster's nodes cannot hear each other's commits in time: their database tells no one.
  // Registered only with Redis at hand, so that a run without it skips nothing.
  const withRedis = (process.env['REDIS_URL'] ?? '') !== '';
  if (withRedis)
    it('a node of a cluster (with Redis) on the same database removes the triggers that tell commits', async () => {
      const triggers = async () => Number((await outside.query("select count(*) from pg_trigger where tgname like 'engage\\_tell\\_%'")).rows[0].count);
      expect(await triggers()).toBe(9);
      await server.stop();
      server = await spawnServer({ DATABASE_URL: url, METRICS_TOKEN: TOKEN, RATE_LIMITS: 'off' });
      expect(await triggers()).toBe(0);
    });
});
