import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { Client, manage, request, uid } from '../helpers/api.js';
import { MANAGE_TOKEN } from '../helpers/spawn.js';
import { join, makeRoom, say } from '../chat/helpers.js';
import { open, wsUrl } from '../realtime/ws-client.js';
import { scrapedTotal } from '../operability/prometheus-text.js';
import { twoNodesForSuite } from './two-nodes.js';

const TOKEN = 'cross-node-freshness-metrics-0123456789';
const LATE_MS = 300;

/**
 * Node B hears Redis 300 ms late, so every invalidation node A sends would reach B long after A
 * answered the write. The first request B gets after that answer must still see the change: A
 * answers a write only once every node that received its invalidations acknowledged applying them.
 */
describe('a change acknowledged on one node, read at once on a node that hears it late', () => {
  const nodes = twoNodesForSuite({ redis: true, slowLinkToB: LATE_MS, env: { RATE_LIMITS: 'off', METRICS_TOKEN: TOKEN } });
  const onB = async (path: string) => {
    const res = await nodes.b.get(path);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data;
  };

  it("shows a user's new name in their profile and in the room's pages", async () => {
    const room = await makeRoom(nodes.a.api, { enableenterandexit: false });
    const host = uid('host');
    await join(nodes.a.api, room.id, host, { displayname: 'Commentator' });
    await say(nodes.a.api, room.id, host, 'hello');
    expect((await onB(`user/users/${host}`)).displayname).toBe('Commentator');
    expect((await onB(`chat/rooms/${room.id}/updates`)).events.map((e: { user: { displayname: string } }) => e.user.displayname)).toEqual(['Commentator']);
    for (const name of ['Head Commentator', 'Chief Commentator']) {
      expect((await nodes.a.api.post(`user/users/${host}`, { displayname: name })).status).toBe(200);
      expect((await onB(`user/users/${host}`)).displayname).toBe(name);
      expect((await onB(`chat/rooms/${room.id}/updates`)).events.map((e: { user: { displayname: string } }) => e.user.displayname)).toEqual([name]);
    }
  });

  it('refuses a user bounced on the other node', async () => {
    const room = await makeRoom(nodes.a.api, { enableenterandexit: false });
    const fan = uid('fan');
    await join(nodes.a.api, room.id, fan);
    expect((await nodes.b.post(`chat/rooms/${room.id}/command`, { userid: fan, command: 'come on' })).status).toBe(200);
    expect((await nodes.a.api.post(`chat/rooms/${room.id}/bounce`, { userid: fan, bounce: true })).status).toBe(200);
    expect((await nodes.b.post(`chat/rooms/${room.id}/command`, { userid: fan, command: 'let me back' })).status).toBe(403);
  });

  it('refuses a token revoked on the other node, over HTTP, for a new socket and a new event stream', async () => {
    const made = await manage('createtoken', { applicationid: nodes.a.appid, name: 'short-lived' }, nodes.a.api.base);
    expect(made.status).toBe(200);
    const onBWithToken = new Client(nodes.b.base, nodes.a.appid, made.body.data.token);
    const room = await makeRoom(nodes.a.api, { enableenterandexit: false });
    const streamOnB = () => fetch(`${nodes.b.base}/api/v3/${nodes.a.appid}/sse?topic=room:${room.id}&token=${encodeURIComponent(made.body.data.token)}`);
    const socketOnB = () => open(wsUrl(nodes.b.base, nodes.a.appid), { 'x-api-token': made.body.data.token });
    // B accepts the token everywhere, and so remembers it.
    expect((await onBWithToken.get('chat/rooms')).status).toBe(200);
    const accepted = await streamOnB();
    expect(accepted.status).toBe(200);
    await accepted.body?.cancel();
    const before = await socketOnB();
    await before.next((f) => f['type'] === 'ready');
    before.close();

    const revoked = await request('DELETE', `${nodes.a.api.base}/api/v3/manage/tokens/${made.body.data.id}`, undefined, { 'x-manage-token': MANAGE_TOKEN });
    expect(revoked.status).toBe(200);
    // Each at once after the answer, well within the 300 ms B would need to hear of it by itself.
    const refused = await streamOnB();
    expect(refused.status).toBe(403);
    await refused.body?.cancel();
    const socket = await socketOnB();
    expect((await socket.closed).code).toBe(4003);
    // Refused at authentication, not accepted and closed later when the revocation arrived.
    expect(socket.frames.map((f) => f['type'])).not.toContain('ready');
    expect((await onBWithToken.get('chat/rooms')).status).toBe(403);
  });

  it('costs the reads nothing: the write waits for the slow node, a crowd of reads on it does not', async () => {
    const fan = uid('fan');
    expect((await nodes.a.api.post(`user/users/${fan}`, { displayname: 'Fan' })).status).toBe(200);
    const started = performance.now();
    expect((await nodes.a.api.post(`user/users/${fan}`, { displayname: 'Fan on tour' })).status).toBe(200);
    // Node B hears the invalidation LATE_MS late, and its acknowledgement takes as long to leave.
    expect(performance.now() - started).toBeGreaterThanOrEqual(LATE_MS);
    const timeouts = () => scrapedTotal(nodes.servers[0].url, TOKEN, 'engage_bus_ack_timeouts_total');
    expect(await timeouts()).toBe(0);
    // A read that waited for anything on B's link would take LATE_MS at least.
    const reading = performance.now();
    const crowd = await Promise.all(Array.from({ length: 40 }, () => onB(`user/users/${fan}`)));
    expect(crowd.map((user) => user.displayname)).toEqual(Array(40).fill('Fan on tour'));
    expect(performance.now() - reading).toBeLessThan(LATE_MS);
  });

  it('answers a write within about a second when a receiver of its broadcasts never acknowledges', async () => {
    // A subscriber that is not a node: Redis counts it among the receivers, and it never answers.
    const stranger = new Redis((nodes.redis as NonNullable<typeof nodes.redis>).url);
    await stranger.subscribe('engage:bus');
    try {
      const timeouts = () => scrapedTotal(nodes.servers[0].url, TOKEN, 'engage_bus_ack_timeouts_total');
      const before = await timeouts();
      const fan = uid('fan');
      const started = performance.now();
      expect((await nodes.a.api.post(`user/users/${fan}`, { displayname: 'Fan' })).status).toBe(200);
      expect((await nodes.a.api.post(`user/users/${fan}`, { displayname: 'Fan again' })).status).toBe(200);
      const took = performance.now() - started;
      expect(took).toBeGreaterThanOrEqual(1000);
      expect(took).toBeLessThan(2 * 1000 + 1000);
      expect(await timeouts()).toBeGreaterThan(before);
      expect((await onB(`user/users/${fan}`)).displayname).toBe('Fan again');
    } finally {
      stranger.disconnect();
    }
  });
});
