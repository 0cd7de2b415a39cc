import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SocketPool } from '../../bench/ws-fanout-clients.js';
import { pusherDialect, soketiTarget } from '../../bench/ws-fanout-soketi.js';
import type { Target } from '../../bench/ws-fanout-targets.js';
import { eventually } from '../webhooks/receiver.js';

/** bench:ws's Soketi peer keeps running: its uWS override and CommonJS shim load, and the signed HTTP API publishes. */
describe('bench:ws Soketi target', () => {
  let soketi: Target;
  beforeAll(async () => {
    soketi = await soketiTarget(1, undefined);
  }, 60_000);
  afterAll(() => soketi?.stop());

  it('pushes a message published through the signed HTTP API to every subscribed socket', async () => {
    const pool = new SocketPool(pusherDialect, 1, 1);
    try {
      await pool.open(soketi.urls, 5);
      expect(await soketi.post(`hello t=${Date.now()}`)).toBe(200);
      await eventually(
        async () => pool.deliveries,
        (n) => n === 5,
        10_000,
      );
      expect(pool.latency[0]?.summary().count).toBe(5);
    } finally {
      pool.closeAll();
    }
  });

  // What makes the publish above count: Soketi checks the signature, and the target reads its verdict from the body.
  it('refuses a publish whose signature does not match, in the body (its status stays 200)', async () => {
    const port = new URL(soketi.urls[0] as string).port;
    const res = await fetch(`http://127.0.0.1:${port}/apps/bench/events?auth_key=bench-key&auth_timestamp=${Math.floor(Date.now() / 1000)}&auth_version=1.0&body_md5=0&auth_signature=0`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'm', channels: ['bench'], data: 'x' }),
    });
    expect(await res.json()).toEqual({ error: 'The secret authentication failed', code: 401 });
  });
});
