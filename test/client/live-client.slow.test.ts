import { rmSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { wsUrl } from '../realtime/ws-client.js';
import { LiveClient, type LiveConfig, type LiveEvents } from '../../client/dist/index.js';
import { userToken } from '../foundation/util.js';
import { Client, newApp, uid, type TestApp } from '../helpers/api.js';
import { spawnServer, type SpawnedServer } from '../helpers/spawn.js';
import { TcpProxy } from './proxy.js';
import { feedAfter, gaps, post, Received, until } from './stream.js';
import { freshDataDir } from '../helpers/data-template.js';

/**
 * engage-client in Node against a real server, through a TCP proxy that cuts the network: each
 * room subscription must hand over every event once, in seq order, with no gap.
 */
const dataDir = freshDataDir();
// Thousands of posts from a few users: the chat rate limit would refuse them. The last test
// locks the address out (failed authentications) for a short while.
const ENV = { DATA_DIR: dataDir, RATE_LIMIT_CHAT: '1000000/10s', RATE_LIMIT_AUTH_FAILURES: '20/1m', RATE_LIMIT_AUTH_LOCKOUT: '3s' };
let server: SpawnedServer;
let proxy: TcpProxy;
let app: TestApp;
const users = ['fan1', 'fan2', 'fan3', 'fan4'];
const clients: LiveClient[] = [];

beforeAll(async () => {
  server = await spawnServer(ENV);
  proxy = await TcpProxy.start(server.port);
  app = await newApp({}, server.url);
}, 90_000);

afterEach(() => {
  for (const c of clients.splice(0)) c.close();
  proxy.restore();
});

afterAll(async () => {
  await proxy?.close();
  await server?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

function live(config: Partial<LiveConfig> = {}): LiveClient {
  const client = new LiveClient({
    appId: app.appid,
    apiToken: app.token,
    endpoint: `${proxy.url}/api/v3`,
    WebSocket: WebSocket as unknown as LiveConfig['WebSocket'],
    // Compact frames unless the run asks for plain ones (TEST_WS_ENCODING=plain): each mode's guarantees are the same.
    compact: process.env['TEST_WS_ENCODING'] !== 'plain',
    reconnectDelayMs: 50,
    maxReconnectDelayMs: 500,
    ...config,
  });
  clients.push(client);
  return client;
}

/** A room with the users joined, and the cursor of its (empty) feed. */
async function newRoom(): Promise<{ roomid: string; start: string }> {
  const roomid = (await app.api.post('chat/rooms', { name: uid('room') })).body.data.id as string;
  for (const userid of users) expect((await app.api.post(`chat/rooms/${roomid}/join`, { userid })).status).toBe(200);
  return { roomid, start: (await app.api.get(`chat/rooms/${roomid}/updates`)).body.data.cursor as string };
}

function states(client: LiveClient): { type: string; event: unknown }[] {
  const seen: { type: string; event: unknown }[] = [];
  for (const type of ['connecting', 'connected', 'disconnected', 'error'] as (keyof LiveEvents)[]) client.on(type, (event) => seen.push({ type, event }));
  return seen;
}

async function connected(client: LiveClient): Promise<void> {
  await until(() => client.state === 'connected', 10_000, 'connected');
}

/** Checks the stream against the room's feed: same events, same order, none twice. */
async function expectWhole(received: Received, roomid: string, start: string, total: number): Promise<void> {
  const expected = await feedAfter(app.api, roomid, start);
  expect(expected).toHaveLength(total);
  await until(() => received.events.length >= total, 30_000, `${total} events (have ${received.events.length})`);
  const got = received.ids();
  expect({ gaps: gaps(expected, got), repeats: received.repeats(), outOfOrder: received.outOfOrder(), count: got.length }).toEqual({ gaps: 0, repeats: 0, outOfOrder: 0, count: total });
  expect(got).toEqual(expected);
}

describe('engage-client in Node', () => {
  it('crosses a network cut during which 6,000 events were posted: REST catch-up past the resume horizon, then live again', async () => {
    const { roomid, start } = await newRoom();
    const client = live();
    const seen = states(client);
    const received = new Received();
    client.subscribe(`room:${roomid}`, { cursor: start, onEvent: received.onEvent });
    await connected(client);
    await post(app.api, roomid, users, 'before ', 20);
    await until(() => received.events.length === 20, 10_000, 'the first 20 live');

    proxy.cut();
    await until(() => client.state !== 'connected', 5_000, 'the cut noticed');
    await post(app.api, roomid, users, 'cut ', 6000);
    proxy.restore();
    await until(() => received.events.length >= 6020, 60_000, `catch-up (have ${received.events.length})`);
    await post(app.api, roomid, users, 'after ', 20);
    await expectWhole(received, roomid, start, 6040);

    expect(received.events.filter((e) => e.meta.catchup === true).length).toBeGreaterThanOrEqual(1000);
    // Caught up or live, every event carries its seq (one more each: nothing else was posted) and cursor.
    const breaks = received.events.filter((e, i) => e.meta.cursor === undefined || (i > 0 && e.meta.seq !== (received.events[i - 1]?.meta.seq as number) + 1));
    expect(breaks).toEqual([]);
    const live20 = received.events.slice(-20);
    expect(live20.every((e) => e.meta.seq !== undefined && e.meta.cursor !== undefined)).toBe(true);
    expect(seen.some((s) => s.type === 'disconnected' && (s.event as LiveEvents['disconnected']).willRetry)).toBe(true);
  }, 540_000);

  it('crosses a kill -9 and restart of the server on the same data', async () => {
    const { roomid, start } = await newRoom();
    const client = live();
    const received = new Received();
    client.subscribe(`room:${roomid}`, { cursor: start, onEvent: received.onEvent });
    await connected(client);
    await post(app.api, roomid, users, 'one ', 30);
    await until(() => received.events.length === 30, 10_000, 'the first 30');

    await server.kill();
    server = await spawnServer(ENV);
    proxy.target = server.port;
    app = { ...app, api: new Client(server.url, app.appid, app.token) };
    await post(app.api, roomid, users, 'two ', 30);
    await expectWhole(received, roomid, start, 60);
  }, 120_000);

  it('waits the delay a node shutting down gives (1001, reconnect in N ms) before it reconnects, so its crowd spreads', async () => {
    const { roomid, start } = await newRoom();
    const client = live();
    const seen: { type: string; at: number; event: unknown }[] = [];
    for (const type of ['connecting', 'disconnected'] as (keyof LiveEvents)[]) client.on(type, (event) => seen.push({ type, at: performance.now(), event }));
    client.subscribe(`room:${roomid}`, { cursor: start, onEvent: () => {} });
    await connected(client);
    await server.stop();
    await until(() => seen.some((s) => s.type === 'disconnected'), 10_000, 'the close');
    const lost = seen.find((s) => s.type === 'disconnected') as (typeof seen)[number];
    const { code, reason, delayMs } = lost.event as LiveEvents['disconnected'];
    const hinted = Number(/reconnect in (\d+) ms/.exec(reason)?.[1]);
    expect({ code, delayMs }).toEqual({ code: 1001, delayMs: hinted });
    server = await spawnServer(ENV);
    proxy.target = server.port;
    app = { ...app, api: new Client(server.url, app.appid, app.token) };
    await until(() => seen.some((s) => s.type === 'connecting' && s.at > lost.at), 15_000, 'the reconnect');
    const again = seen.find((s) => s.type === 'connecting' && s.at > lost.at) as (typeof seen)[number];
    expect(again.at - lost.at).toBeGreaterThanOrEqual(hinted - 5);
    await connected(client);
  }, 120_000);

  it('replaces a socket that went silent (ping) and resumes without gap', async () => {
    const { roomid, start } = await newRoom();
    const client = live({ pingIntervalMs: 300, pongTimeoutMs: 500 });
    const seen = states(client);
    const received = new Received();
    client.subscribe(`room:${roomid}`, { cursor: start, onEvent: received.onEvent });
    await connected(client);
    await post(app.api, roomid, users, 'a ', 10);
    proxy.stall();
    await until(() => seen.some((s) => s.type === 'disconnected' && (s.event as LiveEvents['disconnected']).reason === 'no answer from the server'), 5_000, 'the silence noticed');
    await post(app.api, roomid, users, 'b ', 10);
    proxy.restore();
    await expectWhole(received, roomid, start, 20);
  }, 60_000);

  it('follows other topics and hands REST objects with their event names', async () => {
    const client = live();
    const received = new Received();
    const pollid = (await app.api.post('poll/poll/create', { title: 'p' })).body.data.id as string;
    const choiceid = (await app.api.post(`poll/poll/${pollid}/choice`, { choices: [{ title: 'a' }] })).body.data[0].id as string;
    const subscription = client.subscribe(`poll:${pollid}`, { onEvent: received.onEvent });
    await connected(client);
    // The subscribe frame follows `ready`: a vote right after it could come before the subscription.
    await new Promise((r) => setTimeout(r, 300));
    expect((await app.api.post(`poll/poll/${pollid}/response`, { userid: 'voter1', choiceid })).status).toBe(200);
    await until(() => received.events.length > 0, 10_000, 'standings');
    expect(received.events[0]?.meta).toMatchObject({ topic: `poll:${pollid}`, event: 'poll.standings' });
    subscription.unsubscribe();
  });

  it('counts the user present in a telemetry context through heartbeats, across a reconnect', async () => {
    const contextid = uid('match');
    const jwt = await userToken(app.jwtsecret, { userid: 'fan2' });
    const client = live({ userToken: jwt });
    const received = new Received();
    client.subscribe(`context:${contextid}`, { onEvent: received.onEvent });
    const stop = client.presence(contextid, 'viewers', 500);
    const viewers = () => {
      const last = received.events.at(-1)?.data as { signals?: { key: string; active: number }[] } | undefined;
      return last?.signals?.find((s) => s.key === 'viewers')?.active ?? 0;
    };
    await until(() => viewers() === 1, 10_000, 'one viewer');
    proxy.cut();
    proxy.restore();
    await until(() => client.state === 'connected', 10_000, 'connected again');
    const seen = received.events.length;
    await until(() => received.events.length > seen && viewers() === 1, 10_000, 'still one viewer');
    stop();
  });

  it('stops and tells the app when the API token is refused (4003), without retrying', async () => {
    const client = live({ apiToken: 'not-a-token-of-this-app' });
    const seen = states(client);
    client.subscribe('room:x', { onEvent: () => {} });
    await until(() => seen.some((s) => s.type === 'disconnected'), 10_000, 'the refusal');
    await new Promise((r) => setTimeout(r, 300));
    const closes = seen.filter((s) => s.type === 'disconnected').map((s) => s.event);
    expect(closes).toEqual([{ code: 4003, reason: 'api token refused', willRetry: false }]);
    expect(seen.filter((s) => s.type === 'connecting')).toHaveLength(1);
  });

  it('gets a new user token from userTokenRefreshFunction when the one it has is expired or refused', async () => {
    const fresh = await userToken(app.jwtsecret, { userid: 'fan1' });
    const refreshed: string[] = [];
    const userTokenRefreshFunction = async (old: string) => {
      refreshed.push(old);
      return fresh;
    };
    const expired = await userToken(app.jwtsecret, { userid: 'fan1' }, { expiresAt: Math.floor(Date.now() / 1000) - 60 });
    const a = live({ userToken: expired, userTokenRefreshFunction });
    const aSeen = states(a);
    a.subscribe('user:fan1', { onEvent: () => {} });
    await connected(a);
    expect(refreshed).toEqual([expired]);
    expect(aSeen.find((s) => s.type === 'connected')?.event).toEqual({ userid: 'fan1' });

    const forged = await userToken('another-secret-entirely-0123456789', { userid: 'fan1' });
    const b = live({ userToken: forged, userTokenRefreshFunction });
    const bSeen = states(b);
    b.subscribe('user:fan1', { onEvent: () => {} });
    await connected(b);
    expect(refreshed).toEqual([expired, forged]);
    expect(bSeen.filter((s) => s.type === 'disconnected').map((s) => s.event)).toEqual([{ code: 4003, reason: 'user token refused', willRetry: true, delayMs: 0 }]);
  });

  it('tells a subscription it was refused and drops it (a room that does not exist)', async () => {
    const client = live();
    const errors: unknown[] = [];
    client.subscribe('room:no-such-room', { onEvent: () => {}, onError: (e) => errors.push(e) });
    await until(() => errors.length > 0, 10_000, 'the refusal');
    expect(errors[0]).toMatchObject({ code: 'not_found', topic: 'room:no-such-room' });
  });

  // Last: it locks 127.0.0.1 out for RATE_LIMIT_AUTH_LOCKOUT.
  it('waits as told after a 4029 (address locked out), then connects', async () => {
    for (let i = 0; i < 40; i++) {
      const socket = new WebSocket(wsUrl(server.url, app.appid, '?token=refused-token'));
      const code = await new Promise<number>((resolve) => socket.on('close', resolve));
      if (code === 4029) break;
    }
    const client = live();
    const seen = states(client);
    client.subscribe('room:x', { onEvent: () => {} });
    await until(() => seen.some((s) => s.type === 'disconnected'), 10_000, 'the 4029');
    const first = seen.find((s) => s.type === 'disconnected')?.event as LiveEvents['disconnected'];
    expect(first).toMatchObject({ code: 4029, willRetry: true });
    expect(first.delayMs).toBeGreaterThanOrEqual(1000);
    expect(first.delayMs).toBeLessThanOrEqual(3500);
    await connected(client);
  });
});
