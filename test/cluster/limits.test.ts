import { describe, expect, it } from 'vitest';
import { join, makeRoom } from '../chat/helpers.js';
import { type Client, request, uid } from '../helpers/api.js';
import { expectRateLimited } from '../limits/helpers.js';
import { twoNodesForSuite } from './two-nodes.js';

/** Two server processes on one Postgres and one Redis: the limits are counted across them. */
describe('limits shared by two nodes through Redis', () => {
  const nodes = twoNodesForSuite({ redis: true, env: { TRUST_PROXY: '1', RATE_LIMIT_CHAT: '4/1m', RATE_LIMIT_AUTH_FAILURES: '3/1m', RATE_LIMIT_AUTH_LOCKOUT: '1m' } });

  it('holds a user to one chat budget across the nodes (at most one extra write per node)', async () => {
    const room = await makeRoom(nodes.a.api);
    const user = uid('u');
    await join(nodes.a.api, room.id, user);
    const post = (client: Client, i: number) => client.post(`chat/rooms/${room.id}/command`, { userid: user, command: `m${i}` });
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) {
      const res = await post(i % 2 === 0 ? nodes.a.api : nodes.b, i);
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
    const attempt = (base: string) => request('POST', `${base}/api/v3/manage/createapplication`, { name: 'x' }, headers);
    const [one, two] = [nodes.a.api.base, nodes.b.base];
    expect((await attempt(one)).status).toBe(403);
    expect((await attempt(two)).status).toBe(403);
    expect((await attempt(one)).status).toBe(403);
    // The fourth failure, on the other node, starts the lockout there.
    expectRateLimited(await attempt(two), 3);
    expectRateLimited(await attempt(one), 3);
  });
});
