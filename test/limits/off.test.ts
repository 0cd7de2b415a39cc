import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newApp, request, uid, type TestApp } from '../helpers/api.js';
import { spawnServer, type SpawnedServer } from '../helpers/spawn.js';
import { join, makeRoom } from '../chat/helpers.js';
import { connect } from '../realtime/ws-client.js';

describe('RATE_LIMITS=off', () => {
  let server: SpawnedServer;
  let a: TestApp;
  beforeAll(async () => {
    server = await spawnServer({ RATE_LIMITS: 'off', RATE_LIMIT_CHAT: '1/1m', RATE_LIMIT_AUTH_FAILURES: '1/1m', RATE_LIMIT_WS_FRAMES: '1/1m' });
    a = await newApp({}, server.url);
  });
  afterAll(() => server.stop());

  it('turns every limit off at once: writes, failed authentication, WebSocket frames', async () => {
    const room = await makeRoom(a.api);
    const user = uid('u');
    await join(a.api, room.id, user);
    const posts = await Promise.all(Array.from({ length: 20 }, (_, i) => a.api.post(`chat/rooms/${room.id}/command`, { userid: user, command: `m${i}` })));
    expect(posts.map((r) => r.status)).toEqual(Array(20).fill(200));
    for (let i = 0; i < 5; i++) expect((await request('POST', `${server.url}/api/v3/manage/createapplication`, { name: 'limits' }, { 'x-manage-token': 'wrong-0123456789abcdef' })).status).toBe(403);
    const client = await connect(server.url, a.appid, a.token);
    for (let i = 0; i < 10; i++) await client.settle();
    expect(client.frames.filter((f) => f['type'] === 'error')).toEqual([]);
    client.close();
  });
});
