import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import type { BusMessage } from '../../src/realtime/bus.js';
import { RedisBus } from '../../src/realtime/redis-bus.js';
import { eventually, RedisProcess } from '../cluster/infra.js';
import { freePort } from '../helpers/free-port.js';

describe('RedisBus with Redis unreachable', () => {
  it('reports itself disconnected and still delivers to local handlers', async () => {
    const bus = new RedisBus({ url: `redis://127.0.0.1:${await freePort()}`, cluster: false, pubsub: 'classic' }, createLogger('silent'));
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
const modesWithRedis = process.env['REDIS_URL'] ? (['classic', 'sharded'] as const) : [];

for (const mode of modesWithRedis)
  describe(`RedisBus against a real redis-server (${mode} pub/sub)`, () => {
    let redis: RedisProcess;
    let nodeA: RedisBus;
    let nodeB: RedisBus;
    const seenA: [string, BusMessage][] = [];
    const seenB: [string, BusMessage][] = [];
    const payloads = (seen: [string, BusMessage][]) => seen.map(([, m]) => m.payload);

    beforeAll(async () => {
      redis = await RedisProcess.start();
      const log = createLogger('silent');
      nodeA = new RedisBus({ url: redis.url, cluster: false, pubsub: mode }, log);
      nodeB = new RedisBus({ url: redis.url, cluster: false, pubsub: mode }, log);
      expect(await nodeA.waitUntilConnected(5000)).toBe(true);
      expect(await nodeB.waitUntilConnected(5000)).toBe(true);
      // Recorded as plain messages: what travelled is the topic and the payload.
      nodeA.onMessage((appId, m) => seenA.push([appId, { topic: m.topic, payload: m.payload }]));
      nodeB.onMessage((appId, m) => seenB.push([appId, { topic: m.topic, payload: m.payload }]));
    });

    afterAll(async () => {
      await nodeA?.close();
      await nodeB?.close();
      await redis?.kill();
    });

    it('delivers a message once on every node: locally at once, remotely through Redis', async () => {
      nodeA.interest('app1', 'room:r1');
      nodeB.interest('app1', 'room:r1');
      await Promise.all([nodeA.listening('app1', 'room:r1'), nodeB.listening('app1', 'room:r1')]);
      nodeA.publish('app1', { topic: 'room:r1', payload: { n: 1 } });
      expect(seenA).toEqual([['app1', { topic: 'room:r1', payload: { n: 1 } }]]);
      await eventually(async () => seenB.length === 1, 3000, 'delivery on B');
      expect(seenB[0]).toEqual(['app1', { topic: 'room:r1', payload: { n: 1 } }]);
      await new Promise((r) => setTimeout(r, 200));
      expect(seenA).toHaveLength(1);
      expect(seenB).toHaveLength(1);
    });

    it('a live item reaches only the nodes that take an interest in its topic, until the last interest is released; a broadcast reaches every node', async () => {
      const fence = async (n: number) => {
        nodeA.broadcast('app1', { topic: 'fence', payload: { fence: n } });
        await eventually(async () => payloads(seenB).some((p) => (p as { fence?: number }).fence === n), 3000, `fence ${n} on B`);
        await new Promise((r) => setTimeout(r, 200));
      };
      nodeA.publish('app1', { topic: 'poll:quiet', payload: { quiet: 1 } });
      await fence(1);
      expect(payloads(seenB)).not.toContainEqual({ quiet: 1 });

      const releases = [nodeB.interest('app1', 'poll:quiet'), nodeB.interest('app1', 'poll:quiet')];
      await nodeB.listening('app1', 'poll:quiet');
      nodeA.publish('app1', { topic: 'poll:quiet', payload: { quiet: 2 } });
      await eventually(async () => payloads(seenB).some((p) => (p as { quiet?: number }).quiet === 2), 3000, 'delivery on B once interested');

      releases[0]?.();
      releases[0]?.();
      nodeA.publish('app1', { topic: 'poll:quiet', payload: { quiet: 3 } });
      await eventually(async () => payloads(seenB).some((p) => (p as { quiet?: number }).quiet === 3), 3000, 'delivery on B while one interest is held');

      releases[1]?.();
      // The channel lingers a few seconds after the last release, then goes.
      await new Promise((r) => setTimeout(r, 7500));
      nodeA.publish('app1', { topic: 'poll:quiet', payload: { quiet: 4 } });
      await fence(2);
      expect(payloads(seenB)).not.toContainEqual({ quiet: 4 });
    }, 20_000);

    it('serves local handlers while Redis is down, reports it, and recovers after a restart with its interests in force', async () => {
      nodeA.interest('app2', 'poll:p');
      let reconnectedB = 0;
      nodeB.onReconnect(() => reconnectedB++);
      await redis.kill();
      await eventually(async () => !nodeA.isConnected() && !nodeB.isConnected(), 5000, 'disconnected');
      nodeA.publish('app1', { topic: 'room:r1', payload: { n: 2 } });
      expect(seenA.at(-1)?.[1].payload).toEqual({ n: 2 });

      await redis.start();
      await eventually(async () => nodeA.isConnected() && nodeB.isConnected() && reconnectedB === 1, 10_000, 'reconnected');
      nodeB.publish('app2', { topic: 'poll:p', payload: { n: 3 } });
      await eventually(async () => seenA.some(([, m]) => (m.payload as { n: number }).n === 3), 3000, 'delivery on A after restart');
      expect(seenA.filter(([, m]) => (m.payload as { n: number }).n === 3)).toEqual([['app2', { topic: 'poll:p', payload: { n: 3 } }]]);
      expect(seenB.filter(([, m]) => (m.payload as { n: number }).n === 2)).toEqual([]);
    });
  });
