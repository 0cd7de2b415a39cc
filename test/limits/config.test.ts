import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

describe('rate limit configuration', () => {
  it('has the documented defaults', () => {
    expect(loadConfig({}).rateLimits).toEqual({
      enabled: true,
      trustProxy: 0,
      authFailures: { points: 30, seconds: 60 },
      authLockoutSeconds: 300,
      writes: {
        chat: { points: 30, seconds: 10 },
        comments: { points: 20, seconds: 60 },
        votes: { points: 120, seconds: 60 },
        reports: { points: 20, seconds: 60 },
        rooms: { points: 30, seconds: 60 },
        users: { points: 30, seconds: 60 },
        joins: { points: 60, seconds: 60 },
        telemetry: { points: 60, seconds: 10 },
        polls: { points: 60, seconds: 60 },
        notifications: { points: 60, seconds: 60 },
        moderation: { points: 300, seconds: 60 },
        searches: { points: 30, seconds: 10 },
      },
      wsFrames: { points: 300, seconds: 10 },
      connections: { max: undefined, perAddress: 5000 },
    });
    expect(loadConfig({}).searchBounds).toEqual({ timeoutMs: 2000, maxConcurrent: 4 });
    expect(loadConfig({}).telemetryLimits).toEqual({ contextsPerApp: 250, keysPerContext: 100, keyLength: 128, contextIdLength: 128, opsPerBatch: 100 });
  });

  it('reads rates as points/window and RATE_LIMITS=off', () => {
    const config = loadConfig({ RATE_LIMITS: 'off', RATE_LIMIT_CHAT: '5/2s', RATE_LIMIT_VOTES: '100/1h', RATE_LIMIT_AUTH_LOCKOUT: '90s', TRUST_PROXY: '2' }).rateLimits;
    expect(config.enabled).toBe(false);
    expect(config.writes.chat).toEqual({ points: 5, seconds: 2 });
    expect(config.writes.votes).toEqual({ points: 100, seconds: 3600 });
    expect(config.authLockoutSeconds).toBe(90);
    expect(config.trustProxy).toBe(2);
  });

  it('refuses a malformed rate or switch, naming the variable', () => {
    expect(() => loadConfig({ RATE_LIMIT_CHAT: '30' })).toThrow(ConfigError);
    expect(() => loadConfig({ RATE_LIMIT_CHAT: '30' })).toThrow(/RATE_LIMIT_CHAT must be a rate like 30\/10s/);
    expect(() => loadConfig({ RATE_LIMIT_COMMENTS: '0/1m' })).toThrow(/RATE_LIMIT_COMMENTS must allow at least 1/);
    expect(() => loadConfig({ RATE_LIMITS: 'no' })).toThrow(/RATE_LIMITS must be on or off/);
    expect(() => loadConfig({ RATE_LIMIT_AUTH_LOCKOUT: '5' })).toThrow(/RATE_LIMIT_AUTH_LOCKOUT must be a duration/);
    expect(() => loadConfig({ WS_MAX_CONNECTIONS_PER_ADDRESS: '0' })).toThrow(/WS_MAX_CONNECTIONS_PER_ADDRESS must be at least 1/);
    expect(() => loadConfig({ TELEMETRY_MAX_KEY_LENGTH: '251' })).toThrow(/TELEMETRY_MAX_KEY_LENGTH must be at most 250/);
  });
});
