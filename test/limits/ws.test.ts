import { describe, expect, it } from 'vitest';
import { ownServerForSuite } from '../helpers/own-server.js';
import { connect, open, wsUrl } from '../realtime/ws-client.js';

describe('WebSocket frames per socket', () => {
  const own = ownServerForSuite({ RATE_LIMIT_WS_FRAMES: '5/2s', TRUST_PROXY: '1', RATE_LIMIT_AUTH_FAILURES: '1/1m', RATE_LIMIT_AUTH_LOCKOUT: '1m' });

  it('answers rate_limited past the budget and handles frames again in the next window', async () => {
    const client = await connect(own.server.url, own.app.appid, own.app.token);
    for (let i = 0; i < 6; i++) client.send({ type: 'ping' });
    const refused = await client.next((f) => f['type'] === 'error');
    expect(refused).toMatchObject({ type: 'error', code: 'rate_limited' });
    expect(refused['message']).toMatch(/^A socket may send at most 5 frames in 2 s; retry after \d s\.$/);
    expect(client.frames.filter((f) => f['type'] === 'pong')).toHaveLength(5);
    await new Promise((r) => setTimeout(r, 2100));
    await client.settle();
    client.close();
  });

  it('closes a socket that keeps flooding with 4029', async () => {
    const client = await connect(own.server.url, own.app.appid, own.app.token);
    for (let i = 0; i < 50; i++) client.send({ type: 'ping' });
    const closed = await client.closed;
    expect(closed).toEqual({ code: 4029, reason: 'rate limited' });
    expect(client.frames.filter((f) => f['code'] === 'rate_limited')).toHaveLength(1);
  });

  it('counts refused credentials toward the lockout: rate_limited, then 4029, even for a valid token', async () => {
    const headers = { 'x-forwarded-for': '192.0.2.7' };
    const first = await open(wsUrl(own.server.url, own.app.appid), { 'x-api-token': 'not-a-token', ...headers });
    expect((await first.closed).code).toBe(4003);
    const second = await open(wsUrl(own.server.url, own.app.appid), { 'x-api-token': 'still-not-a-token', ...headers });
    expect(await second.next((f) => f['type'] === 'error')).toMatchObject({ code: 'rate_limited' });
    expect((await second.closed).code).toBe(4029);
    const valid = await open(wsUrl(own.server.url, own.app.appid), { 'x-api-token': own.app.token, ...headers });
    expect(await valid.next((f) => f['type'] === 'error')).toMatchObject({ code: 'rate_limited' });
    expect((await valid.closed).code).toBe(4029);
    // Another client is not affected.
    const other = await connect(own.server.url, own.app.appid, own.app.token);
    other.close();
  });
});
