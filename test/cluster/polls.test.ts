import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, newApp, type TestApp } from '../helpers/api.js';
import { spawnServer, type SpawnedServer } from '../helpers/spawn.js';
import { freshDatabase } from './infra.js';
import { testPostgres, type Postgres } from '../chat/postgres.js';

/** Two server processes voting on one poll in one Postgres: each node's batches race the other's. */
describe('votes on one poll from two nodes', () => {
  let pg: Postgres;
  let db: { url: string; drop: () => Promise<void> };
  let nodes: SpawnedServer[] = [];
  let t: TestApp;
  let b: Client;

  beforeAll(async () => {
    pg = await testPostgres();
    db = await freshDatabase(pg.url);
    nodes = [await spawnServer({ DATABASE_URL: db.url }), await spawnServer({ DATABASE_URL: db.url })];
    t = await newApp({}, (nodes[0] as SpawnedServer).url);
    b = new Client((nodes[1] as SpawnedServer).url, t.appid, t.token);
  }, 120_000);

  afterAll(async () => {
    for (const n of nodes) await n.stop();
    await db?.drop();
    pg?.stop();
  });

  it('counts each voter once and keeps standings exact when both nodes take the same votes at once', async () => {
    const created = await t.api.post('poll/poll/create', { title: 'Across nodes' });
    const pollid = created.body.data.id as string;
    const added = await t.api.post(`poll/poll/${pollid}/choice`, { choices: [{ title: 'A' }, { title: 'B' }] });
    const choices = added.body.data.choices.map((c: { id: string }) => c.id) as string[];
    const voters = Array.from({ length: 300 }, (_, i) => ({ userid: `x${i}`, choiceid: choices[i % 2] }));
    // Every vote goes to both nodes twice, all at once: exactly one of the four may count.
    const results = await Promise.all(voters.flatMap((v) => [t.api, b, t.api, b].map((api) => api.post(`poll/poll/${pollid}/response`, v))));
    expect(results.filter((r) => r.status === 200)).toHaveLength(300);
    expect(results.filter((r) => r.status === 409)).toHaveLength(900);
    for (const api of [t.api, b]) {
      const standings = (await api.get(`poll/poll/${pollid}/standings`)).body.data;
      expect(standings.totalresponses).toBe(300);
      expect(standings.choices.map((c: { count: number }) => c.count)).toEqual([150, 150]);
    }
  }, 60_000);
});
