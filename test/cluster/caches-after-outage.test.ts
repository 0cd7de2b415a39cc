import { describe, expect, it } from 'vitest';
import { Client, manage, request } from '../helpers/api.js';
import { MANAGE_TOKEN } from '../helpers/spawn.js';
import { join, makeRoom, say } from '../chat/helpers.js';
import { connect } from '../realtime/ws-client.js';
import { eventually, type RedisProcess } from './infra.js';
import { twoNodesForSuite } from './two-nodes.js';

/**
 * Each node remembers users and tokens; a ban or a revocation made through node A while Redis is
 * down never reaches node B as a message. B must not go on trusting what it remembered once the
 * bus is back.
 */
describe('node memory after a Redis outage', () => {
  const nodes = twoNodesForSuite({ redis: true });
  const READY_AGAIN_MS = 2000;

  const ownedRedis = (): RedisProcess => {
    const redis = nodes.redis;
    if (redis === undefined) throw new Error('the suite runs its own Redis');
    return redis;
  };
  const busDown = async (base: string) => (await request('GET', `${base}/healthz`)).body.data.bus === 'degraded';

  it("node B refuses, within 2 s of Redis returning, a user banned and a token revoked through node A during the outage, and closes that token's socket", async () => {
    const room = await makeRoom(nodes.a.api, { enableenterandexit: false });
    const userid = (await join(nodes.a.api, room.id)).user.userid as string;
    const made = await manage('createtoken', { applicationid: nodes.a.appid, name: 'revoked in the outage' }, nodes.a.api.base);
    expect(made.status).toBe(200);
    const tokenOnB = new Client(nodes.b.base, nodes.a.appid, made.body.data.token);
    // Node B reads, and so remembers, the user, the room, the membership and the token.
    await say(nodes.b, room.id, userid, 'before the outage');
    expect((await tokenOnB.get('chat/rooms')).status).toBe(200);
    const socket = await connect(nodes.b.base, nodes.a.appid, made.body.data.token);

    const redis = ownedRedis();
    await redis.kill();
    await eventually(async () => (await busDown(nodes.a.api.base)) && (await busDown(nodes.b.base)), 10_000, 'both nodes see the bus down');
    expect((await nodes.a.api.post(`user/users/${userid}/ban`, { applyeffect: true })).status).toBe(200);
    const revoked = await request('DELETE', `${nodes.a.api.base}/api/v3/manage/tokens/${made.body.data.id}`, undefined, { 'x-manage-token': MANAGE_TOKEN });
    expect(revoked.status).toBe(200);
    const onA = await nodes.a.api.post(`chat/rooms/${room.id}/command`, { userid, command: 'on A during the outage' });
    expect(onA.status).toBe(403);

    await redis.start();
    const back = Date.now();
    let post = await nodes.b.post(`chat/rooms/${room.id}/command`, { userid, command: 'after the outage' });
    let token = await tokenOnB.get('chat/rooms');
    while ((post.status !== 403 || token.status !== 403) && Date.now() - back < READY_AGAIN_MS) {
      await new Promise((r) => setTimeout(r, 50));
      if (post.status !== 403) post = await nodes.b.post(`chat/rooms/${room.id}/command`, { userid, command: 'after the outage' });
      if (token.status !== 403) token = await tokenOnB.get('chat/rooms');
    }
    expect(post.status, 'node B still lets the banned user post 2 s after Redis returned').toBe(403);
    expect(post.body.message).toMatch(/banned/);
    expect(token.status, 'node B still accepts the revoked token 2 s after Redis returned').toBe(403);
    const closed = await Promise.race([socket.closed, new Promise<undefined>((r) => setTimeout(r, Math.max(0, READY_AGAIN_MS - (Date.now() - back))))]);
    expect(closed?.code, "node B keeps the revoked token's socket open 2 s after Redis returned").toBe(4003);
    // The app's own token still works on B: B refused what changed, not everything.
    expect((await nodes.b.get('chat/rooms')).status).toBe(200);
  });
});
