import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, newApp, type TestApp } from '../helpers/api.js';
import { spawnServer, type SpawnedServer } from '../helpers/spawn.js';
import { join, makeRoom, say } from '../chat/helpers.js';
import { parseSamples, total } from '../operability/prometheus-text.js';
import { connect, type Frame, type WsClient } from '../realtime/ws-client.js';
import { eventually, freshDatabase, RedisProcess } from './infra.js';

const adminUrl = process.env['DATABASE_URL'];
if (adminUrl === undefined || adminUrl === '') throw new Error('The cluster suite needs DATABASE_URL (a Postgres it may create databases on).');

const POSTS = 300;
const SPEAKERS = 10;

/** Live items a node received from other nodes through Redis (control messages are not counted). */
async function liveReceived(node: SpawnedServer): Promise<number> {
  const res = await fetch(`${node.url}/metrics`);
  expect(res.status).toBe(200);
  return total(parseSamples(await res.text()), 'engage_bus_live_messages_received_total');
}

/** The channels some node holds a subscription to, in the mode's own namespace. */
async function subscribedChannels(url: string, mode: string): Promise<string[]> {
  const redis = new Redis(url);
  try {
    return (await redis.call('PUBSUB', mode === 'sharded' ? 'SHARDCHANNELS' : 'CHANNELS')) as string[];
  } finally {
    redis.disconnect();
  }
}

describe.each(['classic', 'sharded'])('four nodes, one Postgres, one Redis (REDIS_PUBSUB=%s)', (mode) => {
  let redis: RedisProcess;
  let db: Awaited<ReturnType<typeof freshDatabase>>;
  const nodes: SpawnedServer[] = [];
  let app: TestApp;
  let roomid: string;
  let speakers: string[];
  const sockets: WsClient[] = [];
  const node = (i: number) => nodes[i] as SpawnedServer;
  const api = (i: number) => new Client(node(i).url, app.appid, app.token);

  beforeAll(async () => {
    redis = await RedisProcess.start();
    db = await freshDatabase(adminUrl);
    const env = { DATABASE_URL: db.url, REDIS_URL: redis.url, REDIS_PUBSUB: mode, RATE_LIMITS: 'off' };
    for (let i = 0; i < 4; i++) nodes.push(await spawnServer(env));
    app = await newApp({}, node(0).url);
    roomid = (await makeRoom(app.api, { enableenterandexit: false })).id;
    speakers = [];
    for (let i = 0; i < SPEAKERS; i++) speakers.push((await join(api(1), roomid)).user.userid as string);
  });

  afterAll(async () => {
    for (const s of sockets) s.close();
    await Promise.all(nodes.map((n) => n.stop()));
    await redis?.kill();
    await db?.drop();
  });

  /** Posts through node B, one after another (so commit order is posting order); returns the ids. */
  const postThroughB = async (count: number, label: string) => {
    const ids: string[] = [];
    for (let i = 0; i < count; i++) ids.push((await say(api(1), roomid, speakers[i % SPEAKERS] as string, `${label} ${i}`)).speech.id as string);
    return ids;
  };

  it("a node with no subscriber and no poller of a busy room receives none of its traffic; the subscriber's node receives all of it", async () => {
    const socket = await connect(node(0).url, app.appid, app.token);
    sockets.push(socket);
    expect((await socket.subscribe(`room:${roomid}`)).type).toBe('subscribed');
    const before = await Promise.all(nodes.map(liveReceived));

    const ids = await postThroughB(POSTS, 'busy');

    const isSpeech = (f: Frame) => f.type === 'event' && f.event === 'chat.event' && f.data.eventtype === 'speech';
    const frames = await socket.collect(isSpeech, POSTS, 20_000);
    expect(frames.map((f) => f.data.id)).toEqual(ids);
    await eventually(async () => (await liveReceived(node(0))) - (before[0] as number) >= POSTS, 10_000, 'node A received every post');
    await socket.settle();
    const after = await Promise.all(nodes.map(liveReceived));
    const received = after.map((n, i) => n - (before[i] as number));
    expect(received[0]).toBe(POSTS);
    expect(received[2]).toBe(0);
    expect(received[3]).toBe(0);
    expect(socket.frames.filter(isSpeech)).toHaveLength(POSTS);
  }, 120_000);

  it('polling updates through a node that starts polling while posts go on sees every event, in order, with no gap', async () => {
    const start = (await api(1).get(`chat/rooms/${roomid}/updates`)).body.data.cursor as string;
    const before = await liveReceived(node(2));
    let posting = true;
    const poll = async () => {
      const seen: string[] = [];
      let cursor = start;
      for (;;) {
        const done = !posting;
        const res = await api(2).get(`chat/rooms/${roomid}/updates?cursor=${cursor}&limit=50`);
        expect(res.status).toBe(200);
        seen.push(...res.body.data.events.map((e: { id: string }) => e.id));
        cursor = res.body.data.cursor;
        if (done && res.body.data.events.length === 0) return seen;
      }
    };
    const polling = poll();
    const ids = await postThroughB(200, 'polled');
    posting = false;
    expect(await polling).toEqual(ids);
    // Node C took an interest in the room while it was polled: its ring was fed through Redis.
    expect((await liveReceived(node(2))) - before).toBeGreaterThan(0);
    expect(await liveReceived(node(3))).toBe(0);
  }, 120_000);

  it('a socket on a topic each node makes itself (context:) subscribes its node to nothing in Redis; a room topic does', async () => {
    const socket = await connect(node(3).url, app.appid, app.token);
    sockets.push(socket);
    expect((await socket.subscribe('context:quiet-corner')).type).toBe('subscribed');
    const elsewhere = (await makeRoom(app.api, { enableenterandexit: false })).id;
    expect((await socket.subscribe(`room:${elsewhere}`)).type).toBe('subscribed');
    const channels = await subscribedChannels(redis.url, mode);
    expect(channels).toContain(`engage:t:${app.appid}:room:${elsewhere}`);
    expect(channels.filter((c) => c.includes('context:'))).toEqual([]);
  }, 60_000);
});
