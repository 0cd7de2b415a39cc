import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newApp } from '../helpers/api.js';
import { spawnServer, type SpawnedServer } from '../helpers/spawn.js';
import { eventually } from './infra.js';
import { fanVisit, LoadLog, missingSummary, PATIENT_WEBHOOKS, readBack, redeliveries, setUpScene, undelivered, type Scene } from './mixed-load.js';
import { PatroniCluster, writable } from './patroni.js';

/** Loops of fans writing at once, each fan visit: join, 3 posts, a like, a comment, a vote. */
const LOOPS = 8;
/** How long the test waits for any one answer: none may take longer. */
const REQUEST_TIMEOUT_MS = 15_000;
/** Writes must succeed again within this long of the kill. */
const RECOVERY_LIMIT_MS = 15_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A server reaching Postgres through HAProxy, in front of a Patroni primary and its synchronous
 * standby. Under a steady mixed load with a postpublish hook, the primary's machine dies: its
 * Patroni and its postmaster are killed with SIGKILL. The standby is promoted, HAProxy follows
 * Patroni's /primary, and the server, never restarted, goes on.
 */
describe('a failover of the Postgres primary under load', () => {
  let cluster: PatroniCluster;
  let server: SpawnedServer;

  beforeAll(async () => {
    cluster = await PatroniCluster.start();
    server = await spawnServer({ DATABASE_URL: cluster.url, ...PATIENT_WEBHOOKS });
  }, 240_000);

  afterAll(async () => {
    await server?.stop();
    await cluster?.stop();
  }, 60_000);

  it('keeps every acknowledged write, answers 503 with Retry-After (never 500) while no primary is reachable, and writes again within 15 s', async () => {
    const app = await newApp({}, server.url);
    const scene: Scene = await setUpScene(app.api);
    const log = new LoadLog();
    let running = true;
    const loops = Array.from({ length: LOOPS }, async () => {
      while (running) {
        const before = log.answers.length;
        await fanVisit(scene, log, 3, REQUEST_TIMEOUT_MS);
        // A refused write ends the visit; a client that honours Retry-After would wait longer.
        if (log.answers.slice(before).some((a) => a.status !== 200)) await sleep(100);
      }
    });
    const readiness: { at: number; status: number }[] = [];
    const readinessProbe = (async () => {
      while (running) {
        const at = Date.now();
        const res = await fetch(`${server.url}/readyz`, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) }).catch(() => undefined);
        readiness.push({ at, status: res?.status ?? 0 });
        await sleep(200);
      }
    })();

    await eventually(async () => log.acked('vote').length >= LOOPS, 60_000, 'steady load under way');
    const killedAt = Date.now();
    const killed = await cluster.killLeader();
    // The killed postmaster's backends may still commit for a moment (the standby confirms them):
    // the switch starts with the first refused write, and ends with the first write acknowledged after it.
    const firstRefused = () => log.answers.find((a) => a.at + a.ms >= killedAt && a.status !== 200);
    const recovered = () => {
      const refused = firstRefused();
      return refused === undefined ? undefined : log.answers.find((a) => a.at > refused.at + refused.ms && a.status === 200);
    };
    await eventually(async () => recovered() !== undefined, 60_000, 'a write acknowledged after the switch').catch(() => undefined);
    await sleep(3000);
    running = false;
    await Promise.all([...loops, readinessProbe]);

    const afterKill = log.answers.filter((a) => a.at + a.ms >= killedAt);
    const refused = afterKill.filter((a) => a.status !== 200);
    const first = recovered();
    const figures = {
      killed: killed.name,
      acknowledged: log.answers.filter((a) => a.status === 200).length,
      statuses: log.statuses(),
      writableAfterMs: first === undefined ? undefined : first.at + first.ms - killedAt,
      refusedFromMs: refused.length === 0 ? undefined : Math.min(...refused.map((a) => a.at + a.ms)) - killedAt,
      refusedUntilMs: refused.length === 0 ? undefined : Math.max(...refused.map((a) => a.at + a.ms)) - killedAt,
      slowestAnswerMs: Math.max(...log.answers.map((a) => a.ms)),
    };
    console.log(`failover figures: ${JSON.stringify(figures)}`);

    expect(first, cluster.logs()).toBeDefined();
    expect(figures.writableAfterMs).toBeLessThanOrEqual(RECOVERY_LIMIT_MS);
    expect(log.failures).toEqual([]);
    expect(Object.keys(log.statuses()).sort()).toEqual(['200', '503']);
    expect(refused.filter((a) => a.status !== 503 || a.retryAfter === null)).toEqual([]);
    // Not ready while no primary was reachable, ready again after.
    const first503 = readiness.find((r) => r.at > killedAt && r.status === 503);
    expect(first503).toBeDefined();
    expect(readiness.filter((r) => r.status !== 200 && r.status !== 503)).toEqual([]);
    await eventually(async () => (await fetch(`${server.url}/readyz`)).status === 200, 10_000, 'ready again');
    expect(await writable(cluster.url), cluster.logs()).toBe(true);

    const none = { join: 0, post: 0, like: 0, comment: 0, vote: 0 };
    expect(await readBack(cluster.url, scene, log)).toEqual({ lost: none, duplicated: none });
    await eventually(async () => undelivered(scene, log).length === 0, 60_000, 'every webhook').catch(() => undefined);
    expect(missingSummary(undelivered(scene, log))).toEqual({});
    console.log(`webhook deliveries repeated (at least once, deduplicated by event id): ${redeliveries(scene)}`);

    // The rate limits still hold: a 31st message within 10 s is refused (RATE_LIMIT_CHAT 30/10s).
    const talker = `talker${Date.now()}`;
    expect((await scene.api.post(`chat/rooms/${scene.roomid}/join`, { userid: talker, handle: talker, displayname: 'Talker' })).status).toBe(200);
    const said = [];
    for (let i = 0; i < 31; i++) said.push((await scene.api.post(`chat/rooms/${scene.roomid}/command`, { userid: talker, command: `chant ${i}` })).status);
    expect(said.slice(0, 30).every((s) => s === 200)).toBe(true);
    expect(said[30]).toBe(429);
    await scene.receiver.close();
  }, 240_000);
});
