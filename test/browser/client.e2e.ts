import type { BrowserContext, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { uid, type TestApp } from '../helpers/api.js';
import type { TcpProxy } from '../client/proxy.js';
import { post } from '../client/stream.js';
import { expectWhole, type FanSite, fanSuite, waitFor } from './fan-page.js';

/**
 * The built engage-client, and the browser's own EventSource, in real Chromium: a page served
 * here (another origin than the API) follows a room through a TCP proxy that cuts the network.
 * Each check counts gaps, repeats and order against the room's feed.
 */
let context: BrowserContext;
let site: FanSite;
let proxy: TcpProxy;
let app: TestApp;
// The chat rate limit allows a user 30 messages in 10 s in a room: the posts are spread over many.
const users = Array.from({ length: 50 }, (_, i) => `fan${i}`);
const suite = fanSuite();
beforeAll(() => {
  ({ app, proxy, site, context } = suite());
});

async function newRoom(): Promise<{ roomid: string; start: string }> {
  const roomid = (await app.api.post('chat/rooms', { name: uid('browser room') })).body.data.id as string;
  for (const userid of users) expect((await app.api.post(`chat/rooms/${roomid}/join`, { userid })).status).toBe(200);
  return { roomid, start: (await app.api.get(`chat/rooms/${roomid}/updates`)).body.data.cursor as string };
}

const openPage = (): Promise<Page> => site.open(context);

describe('engage-client and EventSource in Chromium', () => {
  it('the client crosses a network cut and an offline spell, every event once and in seq order', async () => {
    const { roomid, start } = await newRoom();
    const page = await openPage();
    // What the client asked for and got: compact frames, and deflated batches (Chromium has DecompressionStream).
    const sockets: string[] = [];
    let binaryFrames = 0;
    page.on('websocket', (ws) => {
      sockets.push(ws.url());
      ws.on('framereceived', (frame) => typeof frame.payload !== 'string' && binaryFrames++);
    });
    const config = { appId: app.appid, apiToken: app.token, endpoint: `${proxy.url}/api/v3`, reconnectDelayMs: 100, maxReconnectDelayMs: 1000 };
    await page.evaluate(([c, r, s]) => (window as unknown as { follow: (...a: unknown[]) => void }).follow(c, r, s), [config, roomid, start] as const);
    await page.waitForFunction(() => (window as unknown as { live: { state: string } }).live.state === 'connected');
    await post(app.api, roomid, users, 'live ', 20);
    await waitFor(page, 20);

    proxy.cut();
    await page.waitForFunction(() => (window as unknown as { live: { state: string } }).live.state !== 'connected');
    await post(app.api, roomid, users, 'cut ', 300);
    proxy.restore();
    await waitFor(page, 320);

    await context.setOffline(true);
    await page.waitForFunction(() => (window as unknown as { states: { type: string; reason: string }[] }).states.some((s) => s.reason === 'offline'));
    await post(app.api, roomid, users, 'offline ', 20);
    await context.setOffline(false);
    await post(app.api, roomid, users, 'back ', 10);
    const got = await expectWhole(page, app.api, roomid, start, 350);
    const seqs = got.map((g) => g.seq as number);
    expect(seqs.every((s, i) => i === 0 || s > (seqs[i - 1] as number))).toBe(true);
    expect(sockets.length).toBeGreaterThanOrEqual(2);
    expect(sockets.every((u) => u.includes('encoding=compact') && u.includes('compress=deflate-raw'))).toBe(true);
    // The 300 events of the cut came back as replayed batches, deflated.
    expect(binaryFrames).toBeGreaterThanOrEqual(3);
    await page.close();
  }, 90_000);

  it('EventSource follows a room over SSE and, cut off, reconnects by itself with Last-Event-ID: no gap, no repeat', async () => {
    const { roomid, start } = await newRoom();
    const page = await openPage();
    const url = `${proxy.url}/api/v3/${app.appid}/sse?topic=room:${roomid}&token=${app.token}`;
    // The browser asks for gzip by itself and inflates the stream as it comes.
    const encodings: (string | undefined)[] = [];
    page.on('response', (res) => res.url().includes('/sse?') && encodings.push(res.headers()['content-encoding']));
    await page.evaluate((u) => (window as unknown as { stream: (u: string) => void }).stream(u), url);
    await page
      .waitForFunction(() => (window as unknown as { opens: number }).opens === 1, undefined, { timeout: 10_000 })
      .catch(async (err) => {
        throw new Error(`${err}: ${await page.evaluate(() => JSON.stringify({ state: (window as unknown as { source: EventSource }).source.readyState }))}`);
      });
    await post(app.api, roomid, users, 'sse ', 15);
    await waitFor(page, 15);

    proxy.cut();
    await post(app.api, roomid, users, 'missed ', 40);
    proxy.restore();
    await page.waitForFunction(() => (window as unknown as { opens: number }).opens >= 2, undefined, { timeout: 15_000 });
    await post(app.api, roomid, users, 'after ', 5);
    const got = await expectWhole(page, app.api, roomid, start, 60);
    // Each event's lastEventId is the room cursor after it: REST continues from there.
    const tail = (await app.api.get(`chat/rooms/${roomid}/updates?cursor=${got[58]?.lastEventId}`)).body.data;
    expect(tail.events.map((e: { id: string }) => e.id)).toEqual([got[59]?.id]);
    expect(encodings.length).toBeGreaterThanOrEqual(2);
    expect(encodings.every((e) => e === 'gzip')).toBe(true);
    await page.close();
  }, 90_000);
});
