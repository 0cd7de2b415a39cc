import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReplicatedCache } from '../../src/cache/replicated-cache.js';
import { internal, on, send } from '../../src/internal-messages.js';
import { createLogger } from '../../src/logger.js';
import { MemoryBus } from '../../src/realtime/memory-bus.js';
import { RedisBus } from '../../src/realtime/redis-bus.js';
import { eventually, RedisProcess } from '../cluster/infra.js';

/** A read answered by hand, so a test decides when it settles. */
function pending<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  let reads = 0;
  const read = () => {
    reads++;
    return promise;
  };
  return { read, resolve, reads: () => reads };
}

const log = createLogger('silent');
const userCache = (bus: MemoryBus | RedisBus, limit = 100) => new ReplicatedCache<string>(bus, { invalidation: internal.userChanged, limit });

describe('internal messages', () => {
  it('reach the handlers of their kind only, typed, and a failing handler keeps no other from its message', () => {
    const bus = new MemoryBus(log);
    const left: [string, [string, string]][] = [];
    const changed: string[] = [];
    on(bus, internal.participantLeft, () => {
      throw new Error('handler bug');
    });
    on(bus, internal.participantLeft, (appId, payload) => left.push([appId, payload]));
    const stop = on(bus, internal.roomChanged, (_appId, roomId) => changed.push(roomId));
    send(bus, 'app1', internal.participantLeft, ['room1', 'u1']);
    send(bus, 'app1', internal.roomChanged, 'room1');
    stop();
    send(bus, 'app1', internal.roomChanged, 'room2');
    expect(left).toEqual([['app1', ['room1', 'u1']]]);
    expect(changed).toEqual(['room1']);
  });
});

describe('ReplicatedCache', () => {
  it('serves a stored value from memory, shares one read between concurrent misses and stores no absent value', async () => {
    const cache = userCache(new MemoryBus(log));
    const read = pending<string | undefined>();
    const first = cache.load('k', read.read);
    const second = cache.load('k', read.read);
    read.resolve('v');
    expect(await Promise.all([first, second])).toEqual(['v', 'v']);
    expect(read.reads()).toBe(1);
    expect(cache.peek('k')).toBe('v');
    expect(await cache.load('absent', async () => undefined)).toBeUndefined();
    expect(cache.peek('absent')).toBeUndefined();
  });

  it('an invalidation drops the entry in every holder on the bus, and a read that started before it stores nothing', async () => {
    const bus = new MemoryBus(log);
    const here = userCache(bus);
    const elsewhere = userCache(bus);
    await elsewhere.load('k', async () => 'old');
    const read = pending<string | undefined>();
    const loading = here.load('k', read.read);
    here.invalidate('app1', 'k');
    expect(elsewhere.peek('k')).toBeUndefined();
    read.resolve('read before the change');
    expect(await loading).toBe('read before the change');
    expect(here.peek('k')).toBeUndefined();
    expect(await here.load('k', async () => 'new')).toBe('new');
    expect(here.peek('k')).toBe('new');
  });

  it('a value looked up by one key and invalidated by its id (a token): a revocation during the read keeps it out', async () => {
    const bus = new MemoryBus(log);
    const tokens = new ReplicatedCache<{ id: string }>(bus, { invalidation: internal.tokenRevoked, limit: 100, idOf: (t) => t.id });
    await tokens.load('secret-a', async () => ({ id: 'a' }));
    await tokens.load('secret-b', async () => ({ id: 'b' }));
    const read = pending<{ id: string } | undefined>();
    const loading = tokens.load('secret-c', read.read);
    tokens.invalidate('app1', 'c');
    tokens.invalidate('app1', 'a');
    read.resolve({ id: 'c' });
    await loading;
    expect(tokens.peek('secret-c')).toBeUndefined();
    expect(tokens.peek('secret-a')).toBeUndefined();
    expect(tokens.peek('secret-b')).toEqual({ id: 'b' });
  });

  it('after a write, keeps the written value here and drops the key elsewhere; a change heard during the write wins', async () => {
    const bus = new MemoryBus(log);
    const writer = userCache(bus);
    const other = userCache(bus);
    await other.load('k', async () => 'before');
    const since = writer.stamp();
    writer.changed('app1', 'k', 'written', since);
    expect(writer.peek('k')).toBe('written');
    expect(other.peek('k')).toBeUndefined();

    const overtaken = writer.stamp();
    other.invalidate('app1', 'j');
    writer.changed('app1', 'j', 'maybe older', overtaken);
    writer.fill('i', 'filled', overtaken);
    expect(writer.peek('j')).toBeUndefined();
    expect(writer.peek('i')).toBe('filled');
  });

  it('tells whether any of some keys changed since a stamp, whichever holder on the bus announced it', () => {
    const bus = new MemoryBus(log);
    const here = userCache(bus);
    const elsewhere = userCache(bus);
    const stamp = here.stamp();
    expect(here.unchangedSince(['a', 'b'], stamp)).toBe(true);
    elsewhere.invalidate('app1', 'c');
    expect(here.unchangedSince(['a', 'b'], stamp)).toBe(true);
    elsewhere.invalidate('app1', 'b');
    expect(here.unchangedSince(['a', 'b'], stamp)).toBe(false);
    expect(here.unchangedSince(['a'], stamp)).toBe(true);
    expect(here.unchangedSince(['a', 'b'], here.stamp())).toBe(true);
  });

  it('holds at most its limit, dropping the oldest stored', async () => {
    const cache = userCache(new MemoryBus(log), 2);
    for (const key of ['a', 'b', 'c']) await cache.load(key, async () => key.toUpperCase());
    expect([cache.peek('a'), cache.peek('b'), cache.peek('c')]).toEqual([undefined, 'B', 'C']);
  });
});

// Needs Redis (CI sets REDIS_URL): it runs a redis-server of its own, which it kills and restarts.
const describeWithRedis = process.env['REDIS_URL'] ? describe : () => undefined;

describeWithRedis('ReplicatedCache across a Redis outage', () => {
  let redis: RedisProcess;
  let busA: RedisBus;
  let busB: RedisBus;

  beforeAll(async () => {
    redis = await RedisProcess.start();
    busA = new RedisBus({ url: redis.url, cluster: false, pubsub: 'classic' }, log);
    busB = new RedisBus({ url: redis.url, cluster: false, pubsub: 'classic' }, log);
    expect(await busA.waitUntilConnected(5000)).toBe(true);
    expect(await busB.waitUntilConnected(5000)).toBe(true);
  });

  afterAll(async () => {
    await busA?.close();
    await busB?.close();
    await redis?.kill();
  });

  it('stores nothing while the bus is down, drops everything when it comes back, and a read that ran across the reconnection stores nothing', async () => {
    const onA = userCache(busA);
    const onB = userCache(busB);
    await onB.load('k', async () => 'v');
    await onB.load('j', async () => 'w');
    onA.invalidate('app1', 'j');
    await eventually(async () => onB.peek('j') === undefined, 3000, 'an invalidation through Redis');
    expect(onB.peek('k')).toBe('v');

    const beforeOutage = onB.stamp();
    await redis.kill();
    await eventually(async () => !busA.isConnected() && !busB.isConnected(), 5000, 'disconnected');
    // Changes made elsewhere cannot be heard: nothing counts as unchanged.
    expect(onB.unchangedSince(['k'], onB.stamp())).toBe(false);
    onA.invalidate('app1', 'k');
    const read = pending<string | undefined>();
    const across = onB.load('slow', read.read);
    expect(onB.peek('k')).toBe('v');
    // What B reads now may already be stale for a change it will never hear of: it keeps nothing.
    expect(await onB.load('during', async () => 'x')).toBe('x');
    expect(onB.peek('during')).toBeUndefined();

    await redis.start();
    await eventually(async () => onB.peek('k') === undefined, 5000, 'B forgets what it held before the outage');
    expect(onB.unchangedSince(['unrelated'], beforeOutage)).toBe(false);
    read.resolve('read before the reconnection');
    await across;
    expect(onB.peek('slow')).toBeUndefined();
  });
});
