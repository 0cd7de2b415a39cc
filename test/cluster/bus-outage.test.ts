import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { LiveClient, type LiveConfig } from '../../client/dist/index.js';
import { request, uid } from '../helpers/api.js';
import { connect, type WsClient } from '../realtime/ws-client.js';
import { feedAfter, Received, until } from '../client/stream.js';
import { eventually, type RedisCluster, type RedisProcess } from './infra.js';
import { twoNodesForSuite } from './two-nodes.js';

/**
 * Redis goes away for 10 s while posts are made through node A; sockets and engage-clients
 * listen on node B. Pub/sub loses what A publishes meanwhile: node B must read it from the feed
 * once Redis is back and deliver every acknowledged post exactly once, in order, within 5 s.
 */
const OUTAGE_MS = 10_000;
const FILLED_WITHIN_MS = 5_000;
const SOCKETS = 20;
const CLIENTS = 3;
const users = ['bo1', 'bo2', 'bo3', 'bo4'];
const hidden = 'bo-shadow';

interface Outage {
  stop: 'kill -9' | 'shutdown nosave';
  /** A shadow-banned author posts every third message. */
  shadow?: boolean;
}

const metric = (text: string, name: string) => Number(new RegExp(`^${name} (\\d+)`, 'm').exec(text)?.[1] ?? Number.NaN);

/** `cluster`: a Redis Cluster of three masters with sharded pub/sub, the master holding the room's channel stopped. */
type Bus = 'classic' | 'sharded' | 'cluster';

function outageSuite(bus: Bus, cases: Outage[]): void {
  const pubsub = bus === 'classic' ? 'classic' : 'sharded';
  describe(bus === 'cluster' ? 'one master of a Redis Cluster down, sharded pub/sub' : `a Redis outage, ${pubsub} pub/sub`, () => {
    const nodes = twoNodesForSuite({ redis: bus === 'cluster' ? 'cluster' : true, env: { RATE_LIMIT_CHAT: '1000000/10s', REDIS_PUBSUB: pubsub } });
    /** The Redis to stop: the only one, or the master the room's channel lives on. */
    const redisOf = async (roomid: string): Promise<RedisProcess> => (bus === 'cluster' ? await (nodes.redisCluster as RedisCluster).holderOf(`room:${roomid}`) : (nodes.redis as RedisProcess));
    const busHealth = async (base: string) => (await request('GET', `${base}/healthz`)).body.data.bus as string;

    for (const { stop, shadow = false } of cases) {
      it(`Redis stopped with ${stop} for 10 s${shadow ? ', a shadow-banned author posting' : ''}: every post acknowledged by A reaches every socket and client on B once, in order, within 5 s of Redis returning`, async () => {
        const { a, b, servers } = nodes;
        const roomid = (await a.api.post('chat/rooms', { name: uid('outage') })).body.data.id as string;
        for (const userid of [...users, hidden]) expect((await a.api.post(`chat/rooms/${roomid}/join`, { userid })).status).toBe(200);
        if (shadow) expect((await a.api.post(`chat/rooms/${roomid}/shadowban`, { userid: hidden, applyeffect: true })).status).toBe(200);
        const start = (await a.api.get(`chat/rooms/${roomid}/updates`)).body.data.cursor as string;

        const sockets: WsClient[] = [];
        for (let i = 0; i < SOCKETS; i++) {
          const socket = await connect(servers[1].url, a.appid, a.token);
          expect((await socket.subscribe(`room:${roomid}`)).type).toBe('subscribed');
          sockets.push(socket);
        }
        const clients = Array.from({ length: CLIENTS }, () => {
          const received = new Received();
          const live = new LiveClient({
            appId: a.appid,
            apiToken: a.token,
            endpoint: `${servers[1].url}/api/v3`,
            WebSocket: WebSocket as unknown as LiveConfig['WebSocket'],
            reconnectDelayMs: 50,
            maxReconnectDelayMs: 500,
          });
          live.subscribe(`room:${roomid}`, { cursor: start, onEvent: received.onEvent });
          return { live, received };
        });
        const events = (s: WsClient) => s.frames.filter((f) => f['type'] === 'event' && f['topic'] === `room:${roomid}`);
        // Warm: B's sockets and clients hear A's posts through Redis.
        for (let i = 0; i < 3; i++) expect((await a.api.post(`chat/rooms/${roomid}/command`, { userid: users[i], command: `before ${i}` })).status).toBe(200);
        await until(() => sockets.every((s) => events(s).length === 3) && clients.every((c) => c.received.events.length === 3), 10_000, 'the posts before the outage');
        const errorsBefore = outageLogs(servers[1].stdout()).length;
        const metricsBefore = await (await fetch(`${servers[1].url}/metrics`)).text();

        const redis = await redisOf(roomid);
        if (stop === 'kill -9') await redis.kill();
        else await redis.shutdown();
        const down = Date.now();
        let acknowledged = 0;
        try {
          await eventually(async () => (await busHealth(a.api.base)) === 'degraded' && (await busHealth(b.base)) === 'degraded', 5_000, 'both nodes report the bus degraded');
          for (const base of [a.api.base, b.base]) expect((await request('GET', `${base}/readyz`)).status, 'readiness stays 200 while the database answers').toBe(200);
          for (let i = 0; Date.now() - down < OUTAGE_MS; i++) {
            const author = shadow && i % 3 === 2 ? hidden : (users[i % users.length] as string);
            const res = await a.api.post(`chat/rooms/${roomid}/command`, { userid: author, command: `during ${i}` });
            expect(res.status).toBe(200);
            acknowledged++;
            await new Promise((r) => setTimeout(r, 100));
          }
        } finally {
          await redis.start();
        }
        const back = Date.now();
        // About 6 a second on an idle machine; fewer on a loaded one.
        expect(acknowledged).toBeGreaterThanOrEqual(10);
        const expected = await feedAfter(b, roomid, start);
        expect(expected.length).toBe(3 + (shadow ? acknowledged - Math.floor(acknowledged / 3) : acknowledged));
        await until(
          () => sockets.every((s) => events(s).length >= expected.length) && clients.every((c) => c.received.events.length >= expected.length),
          FILLED_WITHIN_MS,
          `every post on every socket and client (sockets have ${sockets.map((s) => events(s).length).join(',')} of ${expected.length})`,
        );
        const filledAfterMs = Date.now() - back;
        // Anything repeated late would show now.
        await new Promise((r) => setTimeout(r, 500));

        for (const socket of sockets) {
          const got = events(socket);
          expect(got.map((f) => f['data']['id'])).toEqual(expected);
          // Each frame names the one before it: a hole the shadow-banned posts leave is told, not guessed.
          got.slice(1).forEach((f, i) => expect(f['prev']).toBe(got[i]?.['seq']));
        }
        for (const { received, live } of clients) {
          expect({ repeats: received.repeats(), outOfOrder: received.outOfOrder() }).toEqual({ repeats: 0, outOfOrder: 0 });
          expect(received.ids()).toEqual(expected);
          live.close();
        }
        for (const socket of sockets) socket.close();

        await eventually(async () => (await busHealth(b.base)) === 'ok', 5_000, 'node B reports the bus ok again');
        // The line is written once the topics are re-read, just after the node says ok again.
        await eventually(async () => outageLogs(servers[1].stdout()).length > errorsBefore, 5_000, 'the outage told');
        const told = outageLogs(servers[1].stdout()).slice(errorsBefore);
        expect(told, 'one error-level line for the outage').toHaveLength(1);
        expect(told[0]?.topics).toBeGreaterThanOrEqual(1);
        const metricsAfter = await (await fetch(`${servers[1].url}/metrics`)).text();
        const delta = (name: string) => metric(metricsAfter, name) - metric(metricsBefore, name);
        expect(delta('engage_bus_outages_total')).toBe(1);
        const filled = delta('engage_live_gap_filled_events_total');
        if (bus === 'cluster') {
          // The cluster client retries a publish to a slot whose master is away for a while, so
          // some of A's posts reach B live once the master answers; the rest are filled.
          expect(filled + delta('engage_bus_live_messages_received_total'), 'filled or received once the master was back').toBeGreaterThanOrEqual(expected.length - 3);
        } else {
          expect(told[0]?.filled).toBeGreaterThanOrEqual(expected.length - 3);
          expect(filled).toBeGreaterThanOrEqual(expected.length - 3);
          const metricsA = await (await fetch(`${servers[0].url}/metrics`)).text();
          expect(metric(metricsA, 'engage_bus_messages_total\\{direction="unsent"\\}'), 'A counts what it could not send').toBeGreaterThanOrEqual(acknowledged);
        }
        console.info(`${bus}, ${stop}${shadow ? ', shadow' : ''}: ${acknowledged} posts during the outage; all on B ${filledAfterMs} ms after Redis returned`);
      }, 90_000);
    }
  });
}

interface OutageLog {
  level: number;
  topics: number;
  filled: number;
}

/** The error-level lines a node logged when its bus came back. */
function outageLogs(stdout: string): OutageLog[] {
  return stdout
    .split('\n')
    .filter((line) => line.includes('the bus was down'))
    .map((line) => JSON.parse(line) as OutageLog)
    .filter((log) => log.level >= 50);
}

outageSuite('classic', [{ stop: 'kill -9' }, { stop: 'shutdown nosave' }, { stop: 'kill -9', shadow: true }]);
outageSuite('sharded', [{ stop: 'kill -9' }, { stop: 'shutdown nosave' }]);
outageSuite('cluster', [{ stop: 'kill -9' }, { stop: 'shutdown nosave', shadow: true }]);
