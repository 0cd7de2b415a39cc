import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, newApp, request, uid, type TestApp } from '../helpers/api.js';
import { spawnServer, type SpawnedServer } from '../helpers/spawn.js';
import { join, makeRoom } from '../chat/helpers.js';
import { expectRateLimited } from './helpers.js';

const shared = process.env['REDIS_URL'] !== undefined && process.env['DATABASE_URL'] !== undefined;

// Two server processes on the same Postgres (DATABASE_URL) and Redis (REDIS_URL).
if (shared) {
  describe('limits shared by two nodes through Redis', () => {
    const nodes: SpawnedServer[] = [];
    let a: TestApp;
    let b: Client;
    beforeAll(async () => {
      const env = { TRUST_PROXY: '1', RATE_LIMIT_CHAT: '4/1m', RATE_LIMIT_AUTH_FAILURES: '3/1m', RATE_LIMIT_AUTH_LOCKOUT: '1m' };
      nodes.push(await spawnServer(env), await spawnServer(env));
      a = await newApp({}, (nodes[0] as SpawnedServer).url);
      b = new Client((nodes[1] as SpawnedServer).url, a.appid, a.token);
    });
    afterAll(async () => {
      for (const node of nodes) await node.stop();
    });

    it('holds a user to one chat budget across the nodes (at most one extra write per node)', async () => {
      const room = await makeRoom(a.api);
      const user = uid('u');
      await join(a.api, room.id, user);
      const post = (client: Client, i: number) => client.post(`chat/rooms/${room.id}/command`, { userid: user, command: `m${i}` });
      const statuses: number[] = [];
      for (let i = 0; i < 12; i++) {
        const res = await post(i % 2 === 0 ? a.api : b, i);
        statuses.push(res.status);
        if (res.status === 429) expectRateLimited(res, 4);
        // The count on the other node lands in Redis in the background.
        await new Promise((r) => setTimeout(r, 50));
      }
      const accepted = statuses.filter((s) => s === 200).length;
      // Each node alone would accept 4 (8 in all); shared, 4 plus at most one per node.
      expect(accepted).toBeGreaterThanOrEqual(4);
      expect(accepted).toBeLessThanOrEqual(6);
      expect(statuses.slice(-4)).toEqual([429, 429, 429, 429]);
    });

    it('counts failed authentication across the nodes', async () => {
      const headers = { 'x-forwarded-for': '203.0.113.200', 'x-manage-token': 'wrong-0123456789abcdef' };
      const attempt = (node: SpawnedServer) => request('POST', `${node.url}/api/v3/manage/createapplication`, { name: 'x' }, headers);
      const [one, two] = nodes as [SpawnedServer, SpawnedServer];
      expect((await attempt(one)).status).toBe(403);
      expect((await attempt(two)).status).toBe(403);
      expect((await attempt(one)).status).toBe(403);
      // The fourth failure, on the other node, starts the lockout there.
      expectRateLimited(await attempt(two), 3);
      expectRateLimited(await attempt(one), 3);
    });
  });
}
