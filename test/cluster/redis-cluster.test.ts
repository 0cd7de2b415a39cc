import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join, makeRoom, say } from '../chat/helpers.js';
import { Client, newApp, request, uid, type TestApp } from '../helpers/api.js';
import { spawnServer, type SpawnedServer } from '../helpers/spawn.js';
import { expectRateLimited } from '../limits/helpers.js';
import { parseSamples, total } from '../operability/prometheus-text.js';
import { connect, type Frame, type WsClient } from '../realtime/ws-client.js';
import { eventually, freshDatabase, RedisCluster } from './infra.js';

const adminUrl = process.env['DATABASE_URL'];
if (adminUrl === undefined || adminUrl === '') throw new Error('The cluster suite needs DATABASE_URL (a Postgres it may create databases on).');

const ROOMS = 12;

async function liveReceived(node: SpawnedServer): Promise<number> {
  const res = await fetch(`${node.url}/metrics`);
  expect(res.status).toBe(200);
  return total(parseSamples(await res.text()), 'engage_bus_live_messages_received_total');
}

/**
 * REDIS_CLUSTER=on: the nodes speak to a Redis Cluster of three masters through one seed address.
 * Topic channels are sharded (SSUBSCRIBE on the master owning the channel's slot), and the rate
 * limits, presence and the control channel work across it.
 */
describe('three nodes on a Redis Cluster of three masters (REDIS_CLUSTER=on, REDIS_PUBSUB=sharded)', () => {
  let cluster: RedisCluster;
  let db: Awaited<ReturnType<typeof freshDatabase>>;
  const nodes: SpawnedServer[] = [];
  let app: TestApp;
  const sockets: WsClient[] = [];
  const node = (i: number) => nodes[i] as SpawnedServer;
  const api = (i: number) => new Client(node(i).url, app.appid, app.token);

  beforeAll(async () => {
    cluster = await RedisCluster.start(3);
    db = await freshDatabase(adminUrl);
    const env = {
      DATABASE_URL: db.url,
      REDIS_URL: cluster.url,
      REDIS_CLUSTER: 'on',
      REDIS_PUBSUB: 'sharded',
      PRESENCE_STORE: 'redis',
      TRUST_PROXY: '1',
      RATE_LIMIT_AUTH_FAILURES: '3/1m',
      RATE_LIMIT_AUTH_LOCKOUT: '1m',
    };
    for (let i = 0; i < 3; i++) nodes.push(await spawnServer(env));
    app = await newApp({}, node(0).url);
  });

  afterAll(async () => {
    for (const s of sockets) s.close();
    await Promise.all(nodes.map((n) => n.stop()));
    await cluster?.kill();
    await db?.drop();
  });

  it("subscribes each room's channel on the one master that owns its slot, spreading the rooms over the masters", async () => {
    const socket = await connect(node(0).url, app.appid, app.token);
    sockets.push(socket);
    const rooms: string[] = [];
    for (let i = 0; i < ROOMS; i++) {
      const id = (await makeRoom(app.api, { enableenterandexit: false })).id as string;
      rooms.push(id);
      expect((await socket.subscribe(`room:${id}`)).type).toBe('subscribed');
    }
    const byMaster = await cluster.shardChannels();
    const holders = rooms.map((id) => byMaster.filter((channels) => channels.some((c) => c.endsWith(`room:${id}`))).length);
    expect(holders).toEqual(rooms.map(() => 1));
    // Twelve rooms on one master would be a 1 in 177,000 chance.
    expect(byMaster.filter((channels) => channels.some((c) => c.includes(':room:'))).length).toBeGreaterThan(1);
  });

  it('delivers rooms posted to through node B to a subscriber on node A, whichever master holds their channels; node C, with none, receives nothing of them', async () => {
    const socket = await connect(node(0).url, app.appid, app.token);
    sockets.push(socket);
    const speakers = new Map<string, string>();
    for (let i = 0; i < 6; i++) {
      const roomid = (await makeRoom(app.api, { enableenterandexit: false })).id as string;
      speakers.set(roomid, (await join(api(1), roomid)).user.userid as string);
      expect((await socket.subscribe(`room:${roomid}`)).type).toBe('subscribed');
    }
    const before = await Promise.all(nodes.map(liveReceived));
    const ids: string[] = [];
    const sent = new Map<string, string[]>([...speakers.keys()].map((roomid) => [roomid, []]));
    for (let i = 0; i < 3; i++) {
      for (const [roomid, speaker] of speakers) {
        const id = (await say(api(1), roomid, speaker, `sharded ${i}`)).speech.id as string;
        ids.push(id);
        sent.get(roomid)?.push(id);
      }
    }
    const isSpeech = (f: Frame) => f.type === 'event' && f.event === 'chat.event' && f.data.eventtype === 'speech';
    const frames = await socket.collect(isSpeech, ids.length, 20_000);
    // Each room's events in order; rooms whose channels live on different masters may interleave either way.
    const received = new Map<string, string[]>([...speakers.keys()].map((roomid) => [roomid, []]));
    for (const f of frames) received.get(f.data.roomid)?.push(f.data.id);
    expect(received).toEqual(sent);
    await eventually(async () => (await liveReceived(node(0))) - (before[0] as number) >= ids.length, 10_000, 'node A counted every post');
    expect((await liveReceived(node(2))) - (before[2] as number)).toBe(0);
  });

  it('keeps presence in the cluster: what node A records, node B answers, and node C pushes to its subscriber', async () => {
    const contextid = uid('match');
    const watcher = await connect(node(2).url, app.appid, app.token);
    sockets.push(watcher);
    expect((await watcher.subscribe(`context:${contextid}`)).type).toBe('subscribed');
    for (const userid of ['u1', 'u2']) expect((await app.api.post(`telemetry/contexts/${contextid}/presence/viewers/heartbeat`, { userid })).status).toBe(200);
    expect((await api(1).post(`telemetry/contexts/${contextid}/metrics/cheers/increment`, { userid: 'u1', by: 5 })).status).toBe(200);
    const res = await api(1).get(`telemetry/contexts/${encodeURIComponent(contextid)}`);
    expect(res.status).toBe(200);
    expect(res.body.data.signals).toEqual([
      expect.objectContaining({ key: 'cheers', kind: 'metric', active: 1, total: 5 }),
      expect.objectContaining({ key: 'viewers', kind: 'presence', active: 2, total: 2 }),
    ]);
    const pushed = await watcher.next((f) => f.type === 'event' && f.event === 'telemetry.snapshot' && f.data.signals.some((s: { key: string }) => s.key === 'cheers'), 5_000);
    expect(pushed.data.cursor).toBe(res.body.data.cursor);
  });

  it('counts failed authentication across the nodes', async () => {
    const headers = { 'x-forwarded-for': '203.0.113.77', 'x-manage-token': 'wrong-0123456789abcdef' };
    const attempt = (i: number) => request('POST', `${node(i).url}/api/v3/manage/createapplication`, { name: 'x' }, headers);
    expect((await attempt(0)).status).toBe(403);
    expect((await attempt(1)).status).toBe(403);
    expect((await attempt(2)).status).toBe(403);
    expectRateLimited(await attempt(0), 3);
  });

  it('carries invalidations on the control channel: a user banned through node A is refused through node B at once', async () => {
    const roomid = (await makeRoom(app.api, { enableenterandexit: false })).id as string;
    const userid = (await join(api(1), roomid)).user.userid as string;
    expect((await say(api(1), roomid, userid, 'before')).speech.id).toBeTypeOf('string');
    expect((await app.api.post(`user/users/${userid}/ban`, { applyeffect: true })).status).toBe(200);
    await eventually(async () => (await api(1).post(`chat/rooms/${roomid}/command`, { userid, command: 'after' })).status === 403, 2_000, 'node B refuses the banned user');
  });
});
