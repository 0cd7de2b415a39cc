import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnServer, type SpawnedServer } from '../helpers/spawn.js';
import { freePort } from '../helpers/free-port.js';
import { newApp, request, uid, type TestApp } from '../helpers/api.js';
import { join, makeRoom, say } from '../chat/helpers.js';
import { expectRateLimited } from './helpers.js';

describe('limits while Redis is unreachable', () => {
  let server: SpawnedServer;
  let a: TestApp;
  beforeAll(async () => {
    // Nothing listens on this port: the limits count in memory instead (the insurance limiter).
    const redisUrl = `redis://127.0.0.1:${await freePort()}`;
    server = await spawnServer({ REDIS_URL: redisUrl, RATE_LIMIT_CHAT: '2/1m', RATE_LIMIT_AUTH_FAILURES: '1/1m', TRUST_PROXY: '1' });
    a = await newApp({}, server.url);
  });
  afterAll(() => server.stop());

  it('still limits, and never fails a request for want of Redis', async () => {
    const room = await makeRoom(a.api);
    const user = uid('u');
    await join(a.api, room.id, user);
    await say(a.api, room.id, user, 'one');
    await say(a.api, room.id, user, 'two');
    expectRateLimited(await a.api.post(`chat/rooms/${room.id}/command`, { userid: user, command: 'three' }), 2);
    const headers = { 'x-manage-token': 'wrong-0123456789abcdef', 'x-forwarded-for': '203.0.113.99' };
    const attempt = () => request('POST', `${server.url}/api/v3/manage/createapplication`, { name: 'x' }, headers);
    expect((await attempt()).status).toBe(403);
    expectRateLimited(await attempt(), 1);
  });
});
