import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import type { BusMessage } from '../../src/realtime/bus.js';
import { RedisBus } from '../../src/realtime/redis-bus.js';
import { eventually, RedisProcess } from '../cluster/infra.js';
import { freePort } from '../helpers/spawn.js';

describe('RedisBus with Redis unreachable', () => {
  it('reports itself disconnected and still delivers to local handlers', async () => {
    const bus = new RedisBus(`redis://127.0.0.1:${await freePort()}`, createLogger('silent'));
    try {
      const seen: [string, BusMessage][] = [];
      bus.onMessage((appId, m) => seen.push([appId, m]));
      expect(await bus.waitUntilConnected(500)).toBe(false);
      bus.publish('app1', { topic: 'room:r1', payload: { n: 1 } });
      expect(seen).toEqual([['app1', { topic: 'room:r1', payload: { n: 1 } }]]);
    } finally {
      await bus.close();
    }
  });
});

// Needs Redis (CI sets REDIS_URL): it runs a redis-server of its own, which it kills and restarts.
const describeWithRedis = process.env['REDIS_URL'] ? describe : () => undefined;

describeWithRedis('RedisBus against a real redis-server', () => {
  let redis: RedisProcess;
  let nodeA: RedisBus;
  let nodeB: RedisBus;
  const seenA: [string, BusMessage][] = [];
  const seenB: [string, BusMessage][] = [];

  beforeAll(async () => {
    redis = await RedisProcess.start();
    const log = createLogger('silent');
    nodeA = new RedisBus(redis.url, log);
    nodeB = new RedisBus(redis.url, log);
    expect(await nodeA.waitUntilConnected(5000)).toBe(true);
    expect(await nodeB.waitUntilConnected(5000)).toBe(true);
    nodeA.onMessage((appId, m) => seenA.push([appId, m]));
    nodeB.onMessage((appId, m) => seenB.push([appId, m]));
  });

  afterAll(async () => {
    await nodeA?.close();
    await nodeB?.close();
    await redis?.kill();
  });

  it('delivers a message once on every node: locally at once, remotely through Redis', async () => {
    nodeA.publish('app1', { topic: 'room:r1', payload: { n: 1 } });
    expect(seenA).toEqual([['app1', { topic: 'room:r1', payload: { n: 1 } }]]);
    await eventually(async () => seenB.length === 1, 3000, 'delivery on B');
    expect(seenB[0]).toEqual(['app1', { topic: 'room:r1', payload: { n: 1 } }]);
    await new Promise((r) => setTimeout(r, 200));
    expect(seenA).toHaveLength(1);
    expect(seenB).toHaveLength(1);
  });

  it('serves local handlers while Redis is down, reports it, and recovers after a restart', async () => {
    await redis.kill();
    await eventually(async () => !nodeA.isConnected() && !nodeB.isConnected(), 5000, 'disconnected');
    nodeA.publish('app1', { topic: 'room:r1', payload: { n: 2 } });
    expect(seenA.at(-1)?.[1].payload).toEqual({ n: 2 });

    await redis.start();
    await eventually(async () => nodeA.isConnected() && nodeB.isConnected(), 10_000, 'reconnected');
    nodeB.publish('app2', { topic: 'poll:p', payload: { n: 3 } });
    await eventually(async () => seenA.some(([, m]) => (m.payload as { n: number }).n === 3), 3000, 'delivery on A after restart');
    expect(seenA.filter(([, m]) => (m.payload as { n: number }).n === 3)).toEqual([['app2', { topic: 'poll:p', payload: { n: 3 } }]]);
    expect(seenB.filter(([, m]) => (m.payload as { n: number }).n === 2)).toEqual([]);
  });
});
