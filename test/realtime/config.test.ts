import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

describe('realtime configuration', () => {
  it('refuses idle timeouts uWebSockets.js cannot run with, naming the variable', () => {
    expect(() => loadConfig({ WS_IDLE_TIMEOUT_SECONDS: '4' })).toThrow(ConfigError);
    expect(() => loadConfig({ WS_IDLE_TIMEOUT_SECONDS: '4' })).toThrow(/WS_IDLE_TIMEOUT_SECONDS must be at least 8/);
    expect(loadConfig({ WS_IDLE_TIMEOUT_SECONDS: '8' }).wsIdleTimeoutSeconds).toBe(8);
    expect(loadConfig({}).wsIdleTimeoutSeconds).toBe(120);
  });
});
