import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

describe('telemetry configuration', () => {
  it('keeps presence in memory unless PRESENCE_STORE=redis, which needs REDIS_URL', () => {
    expect(loadConfig({}).presenceStore).toBe('memory');
    expect(loadConfig({ PRESENCE_STORE: 'redis', REDIS_URL: 'redis://127.0.0.1:6379' }).presenceStore).toBe('redis');
    expect(() => loadConfig({ PRESENCE_STORE: 'redis' })).toThrow(ConfigError);
    expect(() => loadConfig({ PRESENCE_STORE: 'redis' })).toThrow(/PRESENCE_STORE redis needs REDIS_URL/);
    expect(() => loadConfig({ PRESENCE_STORE: 'disk' })).toThrow(/PRESENCE_STORE must be memory or redis/);
  });
});
