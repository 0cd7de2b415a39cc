import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newApp, type TestApp } from '../helpers/api.js';
import { spawnServer, type SpawnedServer } from '../helpers/spawn.js';
import { connect } from '../realtime/ws-client.js';

// The Redis-backed store is held to the same figures wherever a Redis is given.
const STORES = process.env['REDIS_URL'] === undefined || process.env['REDIS_URL'] === '' ? ['memory'] : ['memory', 'redis'];

describe.each(STORES)('presence window (PRESENCE_WINDOW_SECONDS=2, PRESENCE_STORE=%s)', (store) => {
  let server: SpawnedServer;
  let a: TestApp;
  beforeAll(async () => {
    server = await spawnServer({ PRESENCE_WINDOW_SECONDS: '2', PRESENCE_STORE: store });
    a = await newApp({}, server.url);
  });
  afterAll(() => server.stop());

  it('falls once heartbeats stop; a user who keeps beating stays counted; totals remain', async () => {
    const path = (user: string) => a.api.post('telemetry/contexts/live/presence/viewers/heartbeat', { userid: user });
    const watcher = await connect(server.url, a.appid, a.token);
    await watcher.subscribe('context:live');
    await path('leaver');
    await path('stayer');
    expect((await a.api.get('telemetry/contexts/live')).body.data.signals[0]).toMatchObject({ active: 2 });
    for (let i = 0; i < 3; i++) {
      await new Promise((r) => setTimeout(r, 900));
      await path('stayer');
    }
    const later = (await a.api.get('telemetry/contexts/live')).body.data.signals[0];
    expect(later).toMatchObject({ active: 1, total: 5 });
    await new Promise((r) => setTimeout(r, 3100));
    const gone = (await a.api.get('telemetry/contexts/live')).body.data.signals[0];
    expect(gone).toMatchObject({ active: 0, windowvalue: 0, average: 0, intensity: 0, total: 5 });
    const pushed = watcher.frames.filter((f) => f.type === 'event').map((f) => f.data.signals[0]?.active);
    expect(pushed).toContain(2);
    expect(pushed.at(-1)).toBe(0);
    watcher.close();
  });
});
