import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newApp, type TestApp } from '../helpers/api.js';
import { spawnServer, type SpawnedServer } from '../helpers/spawn.js';
import WebSocket from 'ws';
import { connect, WsClient, wsUrl } from './ws-client.js';

describe('socket limits', () => {
  let server: SpawnedServer;
  let a: TestApp;
  beforeAll(async () => {
    server = await spawnServer({ WS_MAX_BACKPRESSURE: '64kb', WS_MAX_SUBSCRIPTIONS: '2', WS_IDLE_TIMEOUT_SECONDS: '8' });
    a = await newApp({}, server.url);
  });
  afterAll(() => server.stop());

  it('applies WS_MAX_SUBSCRIPTIONS', async () => {
    const client = await connect(server.url, a.appid, a.token);
    expect(await client.subscribe('context:1')).toMatchObject({ type: 'subscribed' });
    expect(await client.subscribe('context:2')).toMatchObject({ type: 'subscribed' });
    expect(await client.subscribe('context:3')).toEqual({ type: 'error', code: 'too_many_subscriptions', message: 'A socket may hold at most 2 subscriptions.', topic: 'context:3' });
    client.close();
  });

  it('closes a frame larger than 16 KiB with 1009', async () => {
    const client = await connect(server.url, a.appid, a.token);
    client.send({ type: 'ping', pad: 'x'.repeat(17 * 1024) });
    expect((await client.closed).code).toBe(1009);
  });

  it('closes a consumer that stops reading with 4008 once it is WS_MAX_BACKPRESSURE behind', async () => {
    const client = await connect(server.url, a.appid, a.token);
    client.socket.pause();
    const frame = JSON.stringify({ type: 'subscribe', topic: `x:${'y'.repeat(260)}` });
    for (let i = 0; i < 40_000 && client.socket.readyState === WebSocket.OPEN; i++) client.send(frame);
    await new Promise((r) => setTimeout(r, 1500));
    client.socket.resume();
    const closed = await client.closed;
    expect(closed.code).toBe(4008);
    expect(client.frames.length).toBeGreaterThan(100);
    expect(client.frames.length).toBeLessThan(40_000);
    const healthy = await connect(server.url, a.appid, a.token);
    await healthy.settle();
    healthy.close();
  });

  it('drops a socket that answers no pings within the idle timeout, keeps one that does', async () => {
    const silent = new WsClient(new WebSocket(wsUrl(server.url, a.appid), { headers: { 'x-api-token': a.token }, autoPong: false }));
    const polite = await connect(server.url, a.appid, a.token);
    await silent.next((f) => f.type === 'ready');
    const started = Date.now();
    await silent.closed;
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(polite.socket.readyState).toBe(WebSocket.OPEN);
    await polite.settle();
    polite.close();
  }, 30_000);
});
