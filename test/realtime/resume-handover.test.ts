import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newApp, type TestApp } from '../helpers/api.js';
import { spawnServer, type SpawnedServer } from '../helpers/spawn.js';
import { scrapedTotal } from '../operability/prometheus-text.js';
import { connect, type Frame } from './ws-client.js';

const TOKEN = 'resume-handover-metrics-token-0123456789';
const speech = (f: Frame) => f.type === 'event' && f.event === 'chat.event' && f.data.eventtype === 'speech';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A socket that resumed filters live items against its replay only until one past the replay goes
 * out (live items come in seq order): then it takes the room's deliveries as every live socket
 * does (uWS's publish), well before the 2 s grace period, with nothing lost or repeated.
 */
describe('a resumed socket hands over to the live topic at the first live item past its replay', () => {
  let server: SpawnedServer;
  let app: TestApp;

  beforeAll(async () => {
    server = await spawnServer({ METRICS_TOKEN: TOKEN, RATE_LIMITS: 'off' });
    app = await newApp({}, server.url);
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
  });

  it('gets the replay, the live items, each once and chained by prev, the later ones through the shared topic', async () => {
    const metric = (name: string, labels: Record<string, string> = {}) => scrapedTotal(server.url, TOKEN, name, labels);
    const room = (await app.api.post('chat/rooms', { name: 'handover', enableenterandexit: false, enableprofanityfilter: false })).body.data.id as string;
    const joined = await app.api.post(`chat/rooms/${room}/join`, { userid: 'u1' });
    const cursor = joined.body.data.eventscursor.cursor as string;
    const say = async (body: string) => expect((await app.api.post(`chat/rooms/${room}/command`, { userid: 'u1', command: body })).status).toBe(200);
    for (const body of ['one', 'two', 'three']) await say(body);

    const fan = await connect(server.url, app.appid, app.token);
    expect(await fan.subscribe(`room:${room}`, cursor)).toMatchObject({ type: 'subscribed', resumed: true });
    await fan.collect(speech, 3, 8_000);
    expect(await metric('engage_live_listeners')).toBe(1);

    const published = await metric('engage_ws_frames_sent_total', { kind: 'published' });
    await say('four');
    await fan.collect(speech, 4, 5_000);
    const handedOver = Date.now();
    while ((await metric('engage_live_listeners')) !== 0) {
      // The grace period alone would keep the listener for 2 s after the replay.
      expect(Date.now() - handedOver).toBeLessThan(1_000);
      await sleep(10);
    }
    for (const body of ['five', 'six', 'seven']) await say(body);
    const frames = await fan.collect(speech, 7, 5_000);
    await fan.settle();
    const got = fan.frames.filter(speech);
    expect(got.map((f) => f.data.body)).toEqual(['one', 'two', 'three', 'four', 'five', 'six', 'seven']);
    for (let i = 1; i < got.length; i++) expect(got[i]?.prev).toBe(got[i - 1]?.seq);
    expect(frames).toHaveLength(7);
    // 'five' to 'seven' went out through the room's uWS topic.
    expect((await metric('engage_ws_frames_sent_total', { kind: 'published' })) - published).toBeGreaterThanOrEqual(3);
    fan.close();
  });
});
