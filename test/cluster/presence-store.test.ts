import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, newApp, uid, type TestApp } from '../helpers/api.js';
import { spawnServer, type SpawnedServer } from '../helpers/spawn.js';
import { connect, type WsClient } from '../realtime/ws-client.js';
import { eventually, freshDatabase, RedisProcess } from './infra.js';

const adminUrl = process.env['DATABASE_URL'];
if (adminUrl === undefined || adminUrl === '') throw new Error('The cluster suite needs DATABASE_URL (a Postgres it may create databases on).');

// A window long enough that nothing falls out of it while the second node starts.
const WINDOW = '600';

describe('PRESENCE_STORE=redis: a node started later answers the same telemetry', () => {
  let redis: RedisProcess;
  let db: Awaited<ReturnType<typeof freshDatabase>>;
  let env: Record<string, string>;
  let nodeA: SpawnedServer;
  let nodeB: SpawnedServer | undefined;
  let app: TestApp;
  const sockets: WsClient[] = [];

  beforeAll(async () => {
    redis = await RedisProcess.start();
    db = await freshDatabase(adminUrl);
    env = { DATABASE_URL: db.url, REDIS_URL: redis.url, PRESENCE_STORE: 'redis', PRESENCE_WINDOW_SECONDS: WINDOW };
    nodeA = await spawnServer(env);
    app = await newApp({}, nodeA.url);
  });

  afterAll(async () => {
    for (const s of sockets) s.close();
    await Promise.all([nodeA?.stop(), nodeB?.stop()]);
    await redis?.kill();
    await db?.drop();
  });

  const snapshot = async (client: Client, contextid: string) => {
    const res = await client.get(`telemetry/contexts/${encodeURIComponent(contextid)}`);
    expect(res.status).toBe(200);
    return res.body.data;
  };

  it('answers the snapshot, signals and cursor recorded through node A before it started, and shares the signal limit', async () => {
    const contextid = uid('match');
    const full = uid('full');
    for (const userid of ['u1', 'u2', 'u3']) expect((await app.api.post(`telemetry/contexts/${contextid}/presence/viewers/heartbeat`, { userid })).status).toBe(200);
    expect((await app.api.post(`telemetry/contexts/${contextid}/metrics/cheers/increment`, { userid: 'u1', by: 5 })).status).toBe(200);
    const batch = await app.api.post(`telemetry/contexts/${contextid}/batch`, {
      userid: 'u2',
      ops: [
        { op: 'sample', key: 'mood', value: 0.5 },
        { op: 'sample', key: 'mood', value: 0.75 },
        { op: 'increment', key: 'cheers' },
      ],
    });
    expect(batch.body.data).toMatchObject({ accepted: 3, rejected: 0 });
    const ops = Array.from({ length: 100 }, (_, i) => ({ op: 'increment', key: `k${i}` }));
    expect((await app.api.post(`telemetry/contexts/${full}/batch`, { userid: 'u1', ops })).body.data).toMatchObject({ accepted: 100, rejected: 0 });
    const before = await snapshot(app.api, contextid);

    nodeB = await spawnServer(env);
    const onB = new Client(nodeB.url, app.appid, app.token);
    const later = await snapshot(onB, contextid);
    expect(later.signals).toEqual([
      { key: 'cheers', kind: 'metric', active: 2, windowvalue: 6, total: 6, average: 3, intensity: 0.01 },
      { key: 'mood', kind: 'gauge', active: 1, windowvalue: 1.25, total: 1.25, average: 0.625, intensity: 0.002083 },
      { key: 'viewers', kind: 'presence', active: 3, windowvalue: 3, total: 3, average: 1, intensity: 0.005 },
    ]);
    expect(later).toMatchObject({ kind: 'telemetry.snapshot', contextid, cursor: before.cursor, signals: before.signals });
    expect(await snapshot(app.api, contextid)).toMatchObject({ cursor: later.cursor, signals: later.signals });

    // The limit of 100 signals holds for the context whichever node records.
    const refused = await onB.post(`telemetry/contexts/${full}/presence/new/heartbeat`, { userid: 'u9' });
    expect(refused.status).toBe(400);
    expect(refused.body.errors).toHaveProperty('key');
    expect((await onB.post(`telemetry/contexts/${full}/metrics/k7/increment`, { userid: 'u9' })).body.data.signal).toMatchObject({ key: 'k7', total: 2, active: 2 });
  });

  it("counts a heartbeat sent to either node at once on both, and pushes A's changes to B's subscribers", async () => {
    if (nodeB === undefined) nodeB = await spawnServer(env);
    const onB = new Client(nodeB.url, app.appid, app.token);
    const contextid = uid('live');
    const watcher = await connect(nodeB.url, app.appid, app.token);
    sockets.push(watcher);
    await watcher.subscribe(`context:${contextid}`);
    expect(await watcher.next((f) => f.type === 'event')).toMatchObject({ event: 'telemetry.snapshot', data: { contextid, signals: [] } });

    const onA = await app.api.post(`telemetry/contexts/${contextid}/presence/viewers/heartbeat`, { userid: 'a1' });
    expect(onA.body.data.signal).toMatchObject({ active: 1 });
    const fromB = await onB.post(`telemetry/contexts/${contextid}/presence/viewers/heartbeat`, { userid: 'b1' });
    expect(fromB.body.data.signal).toMatchObject({ active: 2, total: 2 });
    expect((await snapshot(app.api, contextid)).signals[0]).toMatchObject({ active: 2, total: 2 });

    const pushed = await watcher.next((f) => f.type === 'event' && f.data.signals[0]?.active === 2);
    expect(pushed.data.signals[0]).toMatchObject({ key: 'viewers', total: 2 });
    await app.api.post(`telemetry/contexts/${contextid}/presence/viewers/heartbeat`, { userid: 'a2' });
    await eventually(async () => watcher.frames.some((f) => f.type === 'event' && f.data.signals[0]?.active === 3), 5000, 'push of 3 on B');
  });
});
