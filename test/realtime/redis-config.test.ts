import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

describe('Redis configuration', () => {
  it('is off without REDIS_URL; a URL alone is one server with classic pub/sub', () => {
    expect(loadConfig({}).redis).toBeUndefined();
    expect(loadConfig({ REDIS_URL: 'redis://127.0.0.1:6379' }).redis).toEqual({ url: 'redis://127.0.0.1:6379', cluster: false, pubsub: 'classic' });
  });

  it('takes REDIS_CLUSTER=on (which needs REDIS_URL) and REDIS_PUBSUB=sharded', () => {
    expect(loadConfig({ REDIS_URL: 'redis://10.0.0.5:7000', REDIS_CLUSTER: 'on', REDIS_PUBSUB: 'sharded' }).redis).toEqual({ url: 'redis://10.0.0.5:7000', cluster: true, pubsub: 'sharded' });
    expect(() => loadConfig({ REDIS_CLUSTER: 'on' })).toThrow(ConfigError);
    expect(() => loadConfig({ REDIS_CLUSTER: 'on' })).toThrow(/REDIS_CLUSTER on needs REDIS_URL/);
    expect(() => loadConfig({ REDIS_URL: 'redis://127.0.0.1:6379', REDIS_CLUSTER: 'yes' })).toThrow(/REDIS_CLUSTER must be on or off/);
  });
});
