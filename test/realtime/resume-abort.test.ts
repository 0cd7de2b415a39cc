import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newApp, type TestApp } from '../helpers/api.js';
import { spawnServer, type SpawnedServer } from '../helpers/spawn.js';
import { scrapedTotal } from '../operability/prometheus-text.js';
import { connect, type Frame } from './ws-client.js';

const TOKEN = 'resume-abort-metrics-token-012345';
const databaseUrl = process.env['DATABASE_URL'];
const speech = (f: Frame) => f.type === 'event' && f.event === 'chat.event' && f.data.eventtype === 'speech';

/** Resumes whose subscriber goes away while the replay is still being read. */
describe('a resume abandoned mid-read', () => {
  let server: SpawnedServer;
  let app: TestApp;
  let room: string;
  let firstCursor: string;

  const say = (body: string) => app.api.post(`chat/rooms/${room}/command`, { userid: 'speaker', command: body });
  const listeners = () => scrapedTotal(server.url, TOKEN, 'engage_live_listeners');

  beforeAll(async () => {
    server = await spawnServer({ METRICS_TOKEN: TOKEN, RATE_LIMITS: 'off' });
    app = await newApp({}, server.url);
    room = (await app.api.post('chat/rooms', { name: 'aborts', enableenterandexit: false })).body.data.id;
    await app.api.post(`chat/rooms/${room}/join`, { userid: 'speaker' });
    const watcher = await connect(server.url, app.appid, app.token);
    await watcher.subscribe(`room:${room}`);
    for (let i = 0; i < 600; i += 50) await Promise.all(Array.from({ length: 50 }, (_, k) => say(`m${i + k}`)));
    firstCursor = (await watcher.next(speech, 10_000)).cursor;
    watcher.close();
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
  });

  it('lets go of every listener, whether the replay read was held up (Postgres) or not, and later events reach nobody stale', { timeout: 120_000 }, async () => {
    const before = await listeners();
    // On Postgres the feed's table is locked, so every replay read waits while its subscriber leaves.
    const locker = databaseUrl === undefined ? undefined : new pg.Client({ connectionString: databaseUrl });
    await locker?.connect();
    await locker?.query('begin');
    await locker?.query('lock table chat_events in access exclusive mode');
    const aborts = Array.from({ length: 100 }, () => new AbortController());
    const streams = aborts.map((abort) =>
      fetch(`${server.url}/api/v3/${app.appid}/sse?topic=room:${room}`, { headers: { 'x-api-token': app.token, 'last-event-id': firstCursor }, signal: abort.signal }).catch(() => undefined),
    );
    const sockets = await Promise.all(Array.from({ length: 100 }, () => connect(server.url, app.appid, app.token)));
    for (const ws of sockets) ws.send({ type: 'subscribe', topic: `room:${room}`, cursor: firstCursor });
    await new Promise((r) => setTimeout(r, 500));
    for (const abort of aborts) abort.abort();
    for (const [n, ws] of sockets.entries()) {
      if (n % 2 === 0) ws.close();
      else ws.send({ type: 'unsubscribe', topic: `room:${room}` });
    }
    await Promise.all(streams);
    await new Promise((r) => setTimeout(r, 500));
    await locker?.query('rollback');
    await locker?.end();

    for (let i = 0; i < 1000; i += 50) {
      const answers = await Promise.all(Array.from({ length: 50 }, (_, k) => say(`after${i + k}`)));
      expect(answers.every((a) => a.status === 200)).toBe(true);
    }
    const deadline = Date.now() + 10_000;
    while ((await listeners()) !== before && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(await listeners()).toBe(before);
    for (const ws of sockets.filter((_, n) => n % 2 === 1)) {
      await ws.settle();
      ws.close();
    }
  });
});
