import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testPostgres, type Postgres } from '../chat/postgres.js';
import { newApp, type TestApp } from '../helpers/api.js';
import { freePort, type SpawnedServer, spawnServer, stopProcess } from '../helpers/spawn.js';
import { runLoadtest } from '../operability/loadtest-run.js';
import { debianBinary } from './binaries.js';
import { eventually, freshDatabase, RedisProcess } from './infra.js';

const DRAIN_SECONDS = 3;

/** HAProxy in HTTP mode in front of the nodes, checking /readyz every 500 ms as docs/shutdown.md advises. */
async function startHaproxy(dir: string, port: number, nodePorts: number[]): Promise<ChildProcess> {
  const config = join(dir, 'haproxy.cfg');
  writeFileSync(
    config,
    [
      'defaults',
      '  mode http',
      '  timeout connect 1s',
      '  timeout client 60s',
      '  timeout server 60s',
      '  timeout tunnel 10m',
      '  timeout check 1s',
      '  retries 3',
      '  option redispatch',
      'listen engage',
      `  bind 127.0.0.1:${port}`,
      '  option httpchk GET /readyz',
      '  http-check expect status 200',
      '  default-server inter 500ms fall 1 rise 2',
      ...nodePorts.map((p, i) => `  server node${i} 127.0.0.1:${p} check`),
      '',
    ].join('\n'),
  );
  const haproxy = spawn(debianBinary('/usr/sbin/haproxy'), ['-db', '-f', config], { stdio: 'ignore' });
  await eventually(async () => (await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => undefined))?.status === 200, 10_000, 'haproxy forwarding');
  return haproxy;
}

/**
 * Two nodes on Postgres + Redis behind HAProxy; the load tester's `mixed` scenario runs through it
 * while each node in turn gets SIGTERM, drains, exits and is started again on its port.
 */
describe('a rolling restart behind HAProxy under the mixed load', () => {
  let postgres: Postgres;
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let redis: RedisProcess;
  let haproxy: ChildProcess;
  const dir = mkdtempSync(join(tmpdir(), 'engage-rolling-'));
  const nodes: SpawnedServer[] = [];
  let env: Record<string, string>;
  let proxyUrl: string;
  let app: TestApp;

  beforeAll(async () => {
    postgres = await testPostgres();
    database = await freshDatabase(postgres.url);
    redis = await RedisProcess.start();
    env = { DATABASE_URL: database.url, REDIS_URL: redis.url, SHUTDOWN_DRAIN_SECONDS: String(DRAIN_SECONDS), RATE_LIMITS: 'off' };
    nodes.push(await spawnServer(env), await spawnServer(env));
    const proxyPort = await freePort();
    haproxy = await startHaproxy(
      dir,
      proxyPort,
      nodes.map((n) => n.port),
    );
    proxyUrl = `http://127.0.0.1:${proxyPort}`;
    app = await newApp({}, nodes[0]?.url);
  }, 180_000);

  afterAll(async () => {
    for (const n of nodes) await n.stop();
    if (haproxy !== undefined) await stopProcess(haproxy, 2000);
    await redis?.kill();
    await database?.drop();
    postgres?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('resets nothing, answers only 200s, loses and repeats no write or push, and meets the SLO', { timeout: 300_000 }, async () => {
    const run = runLoadtest(['--url', proxyUrl, '--app', app.appid, '--token', app.token, '--scenario', 'mixed', '--fans', '16', '--duration', '45', '--slo', 'p99=3000']);
    let loadEnded = false;
    void run.then(() => (loadEnded = true));
    const exits: (number | null)[] = [];
    await new Promise((r) => setTimeout(r, 5000));
    for (const i of [0, 1]) {
      const old = nodes[i] as SpawnedServer;
      const exited = new Promise<number | null>((resolve) => old.process.once('exit', (code) => resolve(code)));
      await old.kill('SIGTERM');
      exits.push(await exited);
      nodes[i] = await spawnServer({ ...env, PORT: String(old.port) });
      // HAProxy takes it back after two good checks.
      await new Promise((r) => setTimeout(r, 3000));
    }
    const restartsDoneBeforeTheLoadEnded = !loadEnded;
    const finished = await run;
    expect(exits).toEqual([0, 0]);
    expect(restartsDoneBeforeTheLoadEnded).toBe(true);
    expect(finished.summary(), finished.stdout + finished.stderr).toMatchObject({ scenario: 'mixed', errors: 0, lost: 0, repeats: 0, overcounted: 0, undelivered: 0, sloMissed: [] });
    expect(finished.summary()['deliveries']).toBeGreaterThan(0);
    expect(finished.code).toBe(0);
    console.log(finished.stdout);
  });
});
