import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newApp, type TestApp } from '../helpers/api.js';
import { spawnServer, type SpawnedServer } from '../helpers/spawn.js';
import { scrapedTotal } from '../operability/prometheus-text.js';
import { SseReader } from './sse-reader.js';
import { connect, type Frame, type WsClient } from './ws-client.js';

const TOKEN = 'catch-up-metrics-token-0123456789';
const BACKLOG = 1200;
const SOCKETS = 150;
const STREAMS = 20;
const speech = (f: Frame) => f.type === 'event' && f.event === 'chat.event' && f.data.eventtype === 'speech';

/** A crowd resuming one room at once, from nearby cursors, over WebSocket and server-sent events. */
describe('a crowd resuming at once shares its catch-up', () => {
  let server: SpawnedServer;
  let app: TestApp;
  let room: string;
  /** Each posted message's seq and cursor, in order. */
  const posted: { seq: number; cursor: string; body: string }[] = [];

  const say = (body: string, userid = 'speaker') => app.api.post(`chat/rooms/${room}/command`, { userid, command: body });
  const blockReads = async () => ({
    misses: await scrapedTotal(server.url, TOKEN, 'engage_shared_answers_total', { cache: 'catch_up_block', result: 'miss' }),
    hits: await scrapedTotal(server.url, TOKEN, 'engage_shared_answers_total', { cache: 'catch_up_block', result: 'hit' }),
  });

  beforeAll(async () => {
    server = await spawnServer({ METRICS_TOKEN: TOKEN, RATE_LIMITS: 'off' });
    app = await newApp({}, server.url);
    room = (await app.api.post('chat/rooms', { name: 'stadium', enableenterandexit: false })).body.data.id;
    expect((await app.api.post(`chat/rooms/${room}/join`, { userid: 'speaker' })).status).toBe(200);
    const watcher = await connect(server.url, app.appid, app.token);
    await watcher.subscribe(`room:${room}`);
    for (let i = 0; i < BACKLOG; i += 50) {
      const answers = await Promise.all(Array.from({ length: 50 }, (_, k) => say(`m${i + k}`)));
      expect(answers.every((a) => a.status === 200)).toBe(true);
    }
    const frames = await watcher.collect(speech, BACKLOG, 30_000);
    for (const f of frames) posted.push({ seq: f.seq, cursor: f.cursor, body: f.data.body });
    watcher.close();
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
  });

  it('every fan gets every event after its own cursor once, in order, while the feed is read once per block', { timeout: 120_000 }, async () => {
    const before = await blockReads();
    // Cursors spread over the first 40 events: blocks overlap, each fan's first is cut where its cursor is.
    const startOf = (n: number) => n % 40;
    const sockets: WsClient[] = await Promise.all(Array.from({ length: SOCKETS }, () => connect(server.url, app.appid, app.token)));
    const streams: SseReader[] = [];
    const resumed = sockets.map((ws, n) => ws.subscribe(`room:${room}`, posted[startOf(n)]?.cursor));
    for (let n = 0; n < STREAMS; n++) {
      const from = posted[startOf(n * 7)]?.cursor as string;
      streams.push(await SseReader.open(`${server.url}/api/v3/${app.appid}/sse?topic=room:${room}`, { 'x-api-token': app.token, 'last-event-id': from }));
    }
    // Live posts while the crowd catches up: each must come after the backlog, once.
    const live = await Promise.all(Array.from({ length: 10 }, (_, k) => say(`live${k}`)));
    expect(live.every((a) => a.status === 200)).toBe(true);
    for (const answer of await Promise.all(resumed)) expect(answer).toMatchObject({ type: 'subscribed', resumed: true });

    const bodies = posted.map((p) => p.body);
    for (const [n, ws] of sockets.entries()) {
      const from = startOf(n);
      const expected = BACKLOG - from - 1 + live.length;
      const got = await ws.collect(speech, expected, 60_000);
      await ws.settle();
      const all = ws.frames.filter(speech);
      expect(all.map((f) => f.data.body).slice(0, BACKLOG - from - 1)).toEqual(bodies.slice(from + 1));
      const seqs = all.map((f) => f.seq as number);
      expect(seqs.every((s, i) => i === 0 || s > (seqs[i - 1] as number))).toBe(true);
      // Each frame names the one before it in this fan's stream, its cursor's position for the first.
      const prevs = all.map((f) => f.prev);
      const expectedPrevs = [posted[from]?.seq, ...seqs.slice(0, -1)];
      const firstOff = prevs.findIndex((p, i) => p !== expectedPrevs[i]);
      expect(firstOff, `fan ${n}: at ${firstOff} prev ${prevs[firstOff]}, expected ${expectedPrevs[firstOff]}, seq ${seqs[firstOff]}, ${all.length} frames`).toBe(-1);
      expect(all).toHaveLength(got.length);
      expect(new Set(all.slice(-live.length).map((f) => f.data.body))).toEqual(new Set(live.map((_, k) => `live${k}`)));
      ws.close();
    }
    for (const [n, stream] of streams.entries()) {
      const from = startOf(n * 7);
      const events = await stream.count(BACKLOG - from - 1 + live.length, 60_000);
      const bodiesSeen = events.map((e) => JSON.parse(e.data).body as string);
      expect(bodiesSeen.slice(0, BACKLOG - from - 1)).toEqual(bodies.slice(from + 1));
      expect(new Set(bodiesSeen).size).toBe(bodiesSeen.length);
      await stream.close();
    }

    // 1,200 events are 3 blocks; a read per block and per head the crowd saw, not one per fan.
    const after = await blockReads();
    expect(after.hits - before.hits).toBeGreaterThanOrEqual(SOCKETS + STREAMS);
    expect(after.misses - before.misses).toBeLessThanOrEqual(30);
  });
});
