import { describe, expect, it } from 'vitest';
import { seqOfCursor, StormFan } from '../../bench/lib/storm-fan.js';
import type { Client } from '../helpers/api.js';
import { feedAfter, until } from '../client/stream.js';
import { twoNodesForSuite } from './two-nodes.js';

/**
 * A node dies under a crowd: two nodes on Postgres and the Redis bus, a few hundred fans of one
 * room (raw WebSockets and server-sent event streams) spread over both, each holding its cursor,
 * posts going on through both nodes. Node A is killed with SIGKILL: its fans reconnect (full
 * jitter, capped at 1 s), find A gone, resume on B from their cursors, and every fan gets every
 * event of the feed exactly once, in order, caught up within CATCH_UP_BOUND_MS of the kill.
 */
const cluster = twoNodesForSuite({ redis: true, env: { RATE_LIMITS: 'off' } });
const WS_FANS = 300;
const SSE_FANS = 40;
const POSTS_PER_SECOND = 20;
/** Every fan has every event committed before the kill within this long of it. */
const CATCH_UP_BOUND_MS = 5_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Posts at a steady rate through the nodes `through()` names, round robin; keeps the ids of the acknowledged ones. */
function keepPosting(roomid: string, speakers: string[], through: () => Client[]): { acked: string[]; stop: () => Promise<void> } {
  const acked: string[] = [];
  const inFlight = new Set<Promise<void>>();
  let sent = 0;
  const timer = setInterval(() => {
    const nodes = through();
    const api = nodes[sent % nodes.length] as Client;
    const posting = api
      .post(`chat/rooms/${roomid}/command`, { userid: speakers[sent % speakers.length], command: `storm ${sent}` })
      .then((res) => {
        if (res.status === 200) acked.push(res.body.data.speech.id as string);
      })
      // A post to the node being killed may fail; only acknowledged posts are owed.
      .catch(() => {})
      .finally(() => inFlight.delete(posting));
    inFlight.add(posting);
    sent++;
  }, 1000 / POSTS_PER_SECOND);
  return {
    acked,
    async stop() {
      clearInterval(timer);
      await Promise.all(inFlight);
    },
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

describe('a reconnect storm when a node dies', () => {
  it('its fans resume on the other node: every fan gets every event exactly once, in order, within the bound', async () => {
    const { a, b, servers } = cluster;
    const roomid = (await a.api.post('chat/rooms', { name: 'storm', enableenterandexit: false })).body.data.id as string;
    const speakers = ['s0', 's1', 's2', 's3'];
    for (const userid of speakers) expect((await a.api.post(`chat/rooms/${roomid}/join`, { userid })).status).toBe(200);
    const start = (await b.get(`chat/rooms/${roomid}/updates?limit=1`)).body.data.cursor as string;
    const route = { endpoints: [servers[0].url, servers[1].url], appid: a.appid, token: a.token, roomId: roomid };
    const fans = Array.from(
      { length: WS_FANS + SSE_FANS },
      // TEST_WS_ENCODING=compact: the fans ask for compact frames (deflated batches; compact event streams), as engage-client does.
      (_, i) =>
        new StormFan(route, {
          transport: i < WS_FANS ? 'ws' : 'sse',
          cursor: start,
          seq: seqOfCursor(start),
          recordIds: true,
          firstEndpoint: i % 2,
          compact: process.env['TEST_WS_ENCODING'] === 'compact',
        }),
    );
    try {
      for (let i = 0; i < fans.length; i += 50) await Promise.all(fans.slice(i, i + 50).map((f) => f.start()));
      let aAlive = true;
      const posting = keepPosting(roomid, speakers, () => (aAlive ? [a.api, b] : [b]));
      await sleep(3000);

      aAlive = false;
      const killedAt = performance.now();
      await servers[0].kill('SIGKILL');
      const headAtKill = seqOfCursor((await b.get(`chat/rooms/${roomid}/updates?limit=1`)).body.data.cursor);
      for (const fan of fans) fan.watch(headAtKill);
      const behind = () => fans.filter((f) => f.reachedAt === undefined);
      const state = (f: StormFan) => `${f.transport} seq ${f.seq} live ${f.live} reconnects ${f.reconnects} (${f.lastProblem})`;
      await until(() => behind().length === 0, 60_000, `every fan at seq ${headAtKill} (behind: ${behind().length}, e.g. ${behind().slice(0, 3).map(state).join('; ')})`);
      await sleep(1000);
      await posting.stop();

      const end = seqOfCursor((await b.get(`chat/rooms/${roomid}/updates?limit=1`)).body.data.cursor);
      await until(() => fans.every((f) => f.seq >= end), 30_000, `every fan at seq ${end}`);
      await sleep(300);
      const feed = await feedAfter(b, roomid, start);
      const moved = fans.filter((f) => f.reconnects > 0);
      const figures = (some: StormFan[]) => {
        const ms = some.map((f) => (f.reachedAt as number) - killedAt);
        return `median ${Math.round(median(ms))} ms, max ${Math.round(Math.max(...ms))} ms`;
      };
      // The fans that stayed on B are the control: how far behind the live edge this machine keeps any fan.
      console.info(
        `${fans.length} fans, ${moved.length} moved to node B; caught up after the kill: moved ${figures(moved)}, stayed ${figures(fans.filter((f) => f.reconnects === 0))}; ${feed.length} events, ${posting.acked.length} posts acknowledged`,
      );

      expect(moved.length).toBeGreaterThanOrEqual(fans.length / 2 - 1);
      const acked = new Set(posting.acked);
      expect(feed.filter((id) => acked.has(id))).toHaveLength(acked.size);
      const wrong = fans.filter((f) => f.gaps > 0 || f.repeats > 0 || f.ids.join() !== feed.join());
      expect(wrong.slice(0, 3).map((f) => ({ transport: f.transport, gaps: f.gaps, repeats: f.repeats, got: f.ids.length, of: feed.length, problem: f.lastProblem }))).toEqual([]);
      expect(Math.max(...fans.map((f) => (f.reachedAt as number) - killedAt))).toBeLessThanOrEqual(CATCH_UP_BOUND_MS);
    } finally {
      for (const fan of fans) fan.stop();
    }
  }, 180_000);
});
