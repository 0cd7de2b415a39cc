import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testPostgres, type Postgres } from '../chat/postgres.js';
import { newApp, type TestApp } from '../helpers/api.js';
import { type Haproxy, startHaproxy } from '../helpers/haproxy.js';
import { type SpawnedServer, spawnServer } from '../helpers/spawn.js';
import { freePort } from '../helpers/free-port.js';
import { runLoadtest } from '../operability/loadtest-run.js';
import { freshDatabase, RedisProcess } from './infra.js';

const DRAIN_SECONDS = 3;

/** HAProxy in HTTP mode in front of the nodes, checking /readyz every 500 ms as docs/shutdown.md advises. */
function startBalancer(port: number, nodePorts: number[]): Promise<Haproxy> {
  return startHaproxy(
    () => [
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
      '  option httpchk',
      // uWebSockets.js answers HTTP/1.0 (HAProxy's default for checks) with 505: check in HTTP/1.1.
      '  http-check send meth GET uri /readyz ver HTTP/1.1 hdr host engage',
      '  http-check expect status 200',
      '  default-server inter 500ms fall 1 rise 2',
      ...nodePorts.map((p, i) => `  server node${i} 127.0.0.1:${p} check`),
    ],
    async () => (await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => undefined))?.status === 200,
  );
}

/**
 * Two nodes on Postgres + Redis behind HAProxy; the load tester's `mixed` scenario runs through it
 * while each node in turn gets SIGTERM, drains, exits and is started again on its port.
 */
describe('a rolling restart behind HAProxy under the mixed load', () => {
  let postgres: Postgres;
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let redis: RedisProcess;
  let haproxy: Haproxy;
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
    haproxy = await startBalancer(
      proxyPort,
      nodes.map((n) => n.port),
    );
    proxyUrl = `http://127.0.0.1:${proxyPort}`;
    app = await newApp({}, nodes[0]?.url);
  }, 180_000);

  afterAll(async () => {
    for (const n of nodes) await n.stop();
    await haproxy?.stop();
    await redis?.kill();
    await database?.drop();
    postgres?.stop();
  });

  it('resets and refuses nothing, answers only 200s, loses and repeats no write or push (sockets resume on the other node), and meets the SLO', { timeout: 300_000 }, async () => {
    let setUp: () => void = () => {};
    const loadUnderWay = new Promise<void>((resolve) => (setUp = resolve));
    // The restarts begin once the run does: a node stopped during the tester's setup (its sockets subscribing) would end the tester there.
    const run = runLoadtest(['--url', proxyUrl, '--app', app.appid, '--token', app.token, '--scenario', 'mixed', '--fans', '16', '--duration', '45', '--slo', 'p99=1000,deliveryP99=3000'], (text) => {
      if (text.includes('setup: room')) setUp();
    });
    let loadEnded = false;
    void run.then(() => (loadEnded = true));
    await Promise.race([loadUnderWay, run]);
    const exits: (number | null)[] = [];
    const began = Date.now();
    const steps: string[] = [];
    const step = (what: string) => steps.push(`${what} at ${((Date.now() - began) / 1000).toFixed(1)} s`);
    await new Promise((r) => setTimeout(r, 5000));
    for (const i of [0, 1]) {
      const old = nodes[i] as SpawnedServer;
      const exited = new Promise<number | null>((resolve) => old.process.once('exit', (code) => resolve(code)));
      await old.kill('SIGTERM');
      exits.push(await exited);
      step(`node ${i} exited`);
      nodes[i] = await spawnServer({ ...env, PORT: String(old.port) });
      step(`node ${i} started again`);
      // HAProxy takes it back after two good checks.
      await new Promise((r) => setTimeout(r, 3000));
    }
    const restartsDoneBeforeTheLoadEnded = !loadEnded;
    const finished = await run;
    expect(exits).toEqual([0, 0]);
    expect(restartsDoneBeforeTheLoadEnded, `the load test ended before both restarts were done (${steps.join(', ')})\n${finished.stdout}\n${finished.stderr}`).toBe(true);
    expect(finished.summary(), finished.stdout + finished.stderr).toMatchObject({
      scenario: 'mixed',
      errors: 0,
      refused: 0,
      lost: 0,
      repeats: 0,
      overcounted: 0,
      undelivered: 0,
      pollMisses: 0,
      pollRepeats: 0,
      sloMissed: [],
    });
    expect(finished.summary()['deliveries']).toBeGreaterThan(0);
    // Each node's sockets closed with 1001 after its drain and resumed through HAProxy on the other.
    expect(finished.summary()['reconnects']).toBeGreaterThanOrEqual(16);
    expect(finished.code).toBe(0);
    console.log(finished.stdout);
  });
});
