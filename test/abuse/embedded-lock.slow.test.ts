import { spawn } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FROM_SOURCE, MANAGE_TOKEN, NODE_FLAGS, spawnServer, type SpawnedServer } from '../helpers/spawn.js';
import { freePort } from '../helpers/free-port.js';
import { freshDataDir } from '../helpers/data-template.js';

/**
 * The embedded database's lock is released by the kernel when its holder dies: a start right
 * after a kill -9 (the killed process not even reaped yet) and a start over a stale pid file
 * whose pid now belongs to a live process both succeed; a second live server is still refused.
 */
const EMBEDDED = { DATABASE_URL: '', REDIS_URL: '' };
const ROOT = new URL('../..', import.meta.url).pathname;
const dataDir = freshDataDir();
let server: SpawnedServer | undefined;
afterAll(async () => {
  await server?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** Resolves once `url` answers /healthz. */
async function healthy(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await fetch(`${url}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`${url} did not start in ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('the embedded lock', () => {
  it('refuses a second live server on the same data directory', async () => {
    server = await spawnServer({ DATA_DIR: dataDir, ...EMBEDDED });
    const second = await spawnServer({ DATA_DIR: dataDir, ...EMBEDDED }).then(
      (s) => s.stop().then(() => 'started'),
      (err: Error) => err.message,
    );
    expect(second).toMatch(/in use/);
    await server.stop();
    server = undefined;
  }, 120_000);

  it('does not refuse a start over a pid file naming a live process', async () => {
    // What a server before this lock left after a kill -9, once its pid went to another process.
    writeFileSync(join(dataDir, 'engage.pid'), String(process.pid));
    server = await spawnServer({ DATA_DIR: dataDir, ...EMBEDDED });
    await server.stop();
    server = undefined;
  }, 120_000);

  it('starts at once after a kill -9, while the killed server is not yet reaped', async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    // perl forks the server and never waits for it: once killed it stays a zombie.
    const parent = spawn('perl', ['-e', '$| = 1; my $pid = fork(); if ($pid == 0) { exec @ARGV; } print "$pid\\n"; sleep 600;', process.execPath, ...NODE_FLAGS, ...FROM_SOURCE], {
      cwd: ROOT,
      env: { ...process.env, ...EMBEDDED, HOST: '127.0.0.1', PORT: String(port), MANAGE_TOKEN, DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      const pid = await new Promise<number>((resolve) => parent.stdout?.once('data', (d: Buffer) => resolve(Number.parseInt(d.toString(), 10))));
      await healthy(url, 60_000);
      process.kill(pid, 'SIGKILL');
      await new Promise((r) => setTimeout(r, 200));
      // Still in the process table (a zombie), as a killed process is until its parent reaps it.
      expect(() => process.kill(pid, 0)).not.toThrow();
      server = await spawnServer({ DATA_DIR: dataDir, ...EMBEDDED });
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    } finally {
      parent.kill('SIGKILL');
    }
  }, 120_000);
});
