import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { ownServerForSuite } from '../helpers/own-server.js';
import { parseSamples, total } from '../operability/prometheus-text.js';

const TOKEN = 'metrics-token-0123456789abcdef';
const onPostgres = process.env['DATABASE_URL'] !== undefined;
const MB = 1024 * 1024;

describe('EMBEDDED_SHARED_BUFFERS', () => {
  it('defaults to 32 MB, takes a size from 1 MB to 1024 MB, and refuses anything else naming the variable', () => {
    expect(loadConfig({}).embeddedSharedBuffers).toBe(32 * MB);
    expect(loadConfig({ EMBEDDED_SHARED_BUFFERS: '128mb' }).embeddedSharedBuffers).toBe(128 * MB);
    expect(loadConfig({ EMBEDDED_SHARED_BUFFERS: '2048kb' }).embeddedSharedBuffers).toBe(2 * MB);
    expect(() => loadConfig({ EMBEDDED_SHARED_BUFFERS: 'lots' })).toThrow(ConfigError);
    expect(() => loadConfig({ EMBEDDED_SHARED_BUFFERS: '512kb' })).toThrow(/EMBEDDED_SHARED_BUFFERS must be at least 1mb/);
    expect(() => loadConfig({ EMBEDDED_SHARED_BUFFERS: '2048mb' })).toThrow(/EMBEDDED_SHARED_BUFFERS must be at most 1024mb/);
  });

  const own = ownServerForSuite({ EMBEDDED_SHARED_BUFFERS: '48mb', METRICS_TOKEN: TOKEN });

  it('is what the embedded database runs with, as /metrics reports it (0 on Postgres, whose buffers are its own)', async () => {
    const res = await fetch(`${own.server.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(200);
    expect(total(parseSamples(await res.text()), 'engage_embedded_shared_buffers_bytes')).toBe(onPostgres ? 0 : 48 * MB);
    // The server answers reads on it as on the default.
    expect((await own.app.api.get('chat/rooms')).status).toBe(200);
  });
});
