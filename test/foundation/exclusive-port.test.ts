import { spawnSync } from 'node:child_process';
import { get } from 'node:http';
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newApp } from '../helpers/api.js';
import { freshDataDir } from '../helpers/data-template.js';
import { BUILT, NODE_FLAGS, spawnServer, type SpawnedServer } from '../helpers/spawn.js';

/**
 * uWebSockets.js would share a port by default (SO_REUSEPORT): a second server started on a port in use would take
 * part of its connections, answering them from another store. The server listens alone, so the second one does not start.
 */
describe('a port already in use', () => {
  const EMBEDDED = { DATABASE_URL: '', REDIS_URL: '' };
  let first: SpawnedServer;
  const secondDataDir = freshDataDir();

  beforeAll(async () => {
    first = await spawnServer(EMBEDDED);
  }, 120_000);

  afterAll(async () => {
    await first?.stop();
    rmSync(secondDataDir, { recursive: true, force: true });
  });

  it('refuses a second server, and every request still reaches the first', async () => {
    const { api } = await newApp({}, first.url);
    expect((await api.post('user/users/u1', { displayname: 'First' })).status).toBe(200);

    const second = spawnSync(process.execPath, [...NODE_FLAGS, ...BUILT], {
      cwd: new URL('../..', import.meta.url).pathname,
      env: { ...process.env, ...EMBEDDED, HOST: '127.0.0.1', PORT: String(first.port), DATA_DIR: secondDataDir, SHUTDOWN_DRAIN_SECONDS: '0' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(second.status).toBe(1);
    expect(second.stdout + second.stderr).toContain(`Cannot listen on 127.0.0.1:${first.port}`);

    // Each on a new connection (no keep-alive agent), so a port shared with another process would hand some of them to it.
    const statuses = await Promise.all(Array.from({ length: 40 }, () => statusOnNewConnection(api.url('user/users/u1'), { 'x-api-token': api.token })));
    expect(statuses.every((status) => status === 200)).toBe(true);
  }, 120_000);
});

function statusOnNewConnection(url: string, headers: Record<string, string>): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    get(url, { agent: false, headers }, (res) => {
      res.resume();
      resolve(res.statusCode);
    }).on('error', reject);
  });
}
