import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnServer, type SpawnedServer } from '../helpers/spawn.js';

const stdoutLines = (server: SpawnedServer) =>
  server
    .stdout()
    .split('\n')
    .filter((line) => line !== '');

/** Resolves once `stdout` holds a line matching `test`, failing after `ms`. */
async function lineWithin(server: SpawnedServer, test: (line: Record<string, unknown>) => boolean, ms: number): Promise<number> {
  const started = performance.now();
  for (;;) {
    const found = stdoutLines(server).some((line) => test(JSON.parse(line) as Record<string, unknown>));
    if (found) return performance.now() - started;
    if (performance.now() - started > ms) throw new Error(`no such log line within ${ms} ms; standard output so far:\n${server.stdout()}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('logs', () => {
  let server: SpawnedServer;
  const firstStartDir = mkdtempSync(join(tmpdir(), 'engage-first-start-'));

  beforeAll(async () => {
    // No MANAGE_TOKEN: the banner prints a generated one (and, on a first start of the embedded default, an application: an empty data directory).
    server = await spawnServer({ LOG_LEVEL: 'info', MANAGE_TOKEN: '', DATA_DIR: firstStartDir });
  });

  afterAll(async () => {
    await server?.stop();
    rmSync(firstStartDir, { recursive: true, force: true });
  });

  it('writes the listening line within a second of the server answering', async () => {
    await lineWithin(server, (line) => line['msg'] === 'listening', 1000);
  });

  it("writes a request's line within a second of the answer", async () => {
    const res = await fetch(`${server.url}/no/such/page/logs-probe`);
    expect(res.status).toBe(404);
    await lineWithin(server, (line) => line['msg'] === 'request' && line['url'] === '/no/such/page/logs-probe' && line['status'] === 404, 1000);
  });

  it('keeps standard output to JSON lines: the first-run banner goes to standard error', async () => {
    await lineWithin(server, (line) => line['msg'] === 'listening', 1000);
    for (const line of stdoutLines(server)) expect(() => JSON.parse(line), line).not.toThrow();
    if (process.env['DATABASE_URL'] === undefined) expect(server.output()).toMatch(/First start: created application "default"\n {2}appid: \S+/);
    expect(server.output()).toMatch(/MANAGE_TOKEN \(generated for this run; set it to keep one\): \S{16,}/);
    expect(server.stdout()).not.toMatch(/appid:|x-api-token:|MANAGE_TOKEN/);
  });

  it('writes a fatal start error as a JSON line before exiting', async () => {
    // Nothing listens on port 1: connecting to the database fails at start.
    const failed = spawnServer({ DATABASE_URL: 'postgres://postgres@127.0.0.1:1/engage', REDIS_URL: '' });
    await expect(failed).rejects.toThrow(/server exited with 1:[\s\S]*"level":60[^\n]*"msg":"start failed"/);
  });
});
