import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { baseUrl, newApp, uid, type TestApp } from '../helpers/api.js';
import { TcpProxy } from '../client/proxy.js';
import { feedAfter, gaps, post } from '../client/stream.js';
import { launch } from './browser.js';

/**
 * The built engage-client, and the browser's own EventSource, in real Chromium: a page served
 * here (another origin than the API) follows a room through a TCP proxy that cuts the network.
 * Each check counts gaps, repeats and order against the room's feed.
 */
const CLIENT_JS = readFileSync(new URL('../../client/dist/index.js', import.meta.url));
const PAGE = `<!doctype html><meta charset="utf-8"><title>fan page</title>
<script type="module">
import { LiveClient } from '/engage-client.js';
window.received = [];
window.states = [];
window.follow = (config, roomid, cursor) => {
  const live = new LiveClient(config);
  for (const type of ['connecting', 'connected', 'disconnected']) live.on(type, (e) => window.states.push({ type, ...e }));
  live.subscribe('room:' + roomid, { cursor, onEvent: (data, meta) => window.received.push({ id: data.id, seq: meta.seq ?? null }) });
  window.live = live;
};
window.stream = (url) => {
  const source = new EventSource(url);
  window.opens = 0;
  source.onopen = () => window.opens++;
  source.addEventListener('chat.event', (e) => window.received.push({ id: JSON.parse(e.data).id, lastEventId: e.lastEventId }));
  window.source = source;
};
window.ready = true;
</script>`;

let browser: Browser;
let context: BrowserContext;
let pageServer: Server;
let pageUrl: string;
let proxy: TcpProxy;
let app: TestApp;
// The chat rate limit allows a user 30 messages in 10 s in a room: the posts are spread over many.
const users = Array.from({ length: 50 }, (_, i) => `fan${i}`);

beforeAll(async () => {
  app = await newApp();
  proxy = await TcpProxy.start(Number(new URL(baseUrl()).port));
  pageServer = createServer((req, res) => {
    if (req.url === '/engage-client.js') res.writeHead(200, { 'content-type': 'text/javascript' }).end(CLIENT_JS);
    else res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE);
  });
  await new Promise<void>((resolve) => pageServer.listen(0, '127.0.0.1', resolve));
  const address = pageServer.address();
  pageUrl = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}/`;
  browser = await launch();
  context = await browser.newContext();
});

afterEach(async () => {
  proxy.restore();
  await context.setOffline(false);
});

afterAll(async () => {
  await browser?.close();
  await proxy?.close();
  await new Promise((r) => pageServer?.close(r));
});

async function newRoom(): Promise<{ roomid: string; start: string }> {
  const roomid = (await app.api.post('chat/rooms', { name: uid('browser room') })).body.data.id as string;
  for (const userid of users) expect((await app.api.post(`chat/rooms/${roomid}/join`, { userid })).status).toBe(200);
  return { roomid, start: (await app.api.get(`chat/rooms/${roomid}/updates`)).body.data.cursor as string };
}

async function openPage(): Promise<Page> {
  const page = await context.newPage();
  await page.goto(pageUrl);
  await page.waitForFunction(() => (window as unknown as { ready?: boolean }).ready === true);
  return page;
}

type Got = { id: string; seq?: number | null; lastEventId?: string }[];
const received = (page: Page): Promise<Got> => page.evaluate(() => (window as unknown as { received: Got }).received);

async function waitFor(page: Page, count: number): Promise<Got> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const got = await received(page);
    if (got.length >= count) return got;
    if (Date.now() > deadline) throw new Error(`the page has ${got.length} of ${count} events`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The page's stream against the room's feed: every event once, in order. */
async function expectWhole(page: Page, roomid: string, start: string, total: number): Promise<Got> {
  const expected = await feedAfter(app.api, roomid, start);
  expect(expected).toHaveLength(total);
  await waitFor(page, total);
  await new Promise((r) => setTimeout(r, 300));
  const got = await received(page);
  const ids = got.map((g) => g.id);
  expect({ gaps: gaps(expected, ids), repeats: ids.length - new Set(ids).size, count: ids.length }).toEqual({ gaps: 0, repeats: 0, count: total });
  expect(ids).toEqual(expected);
  return got;
}

describe('engage-client and EventSource in Chromium', () => {
  it('the client crosses a network cut and an offline spell, every event once and in seq order', async () => {
    const { roomid, start } = await newRoom();
    const page = await openPage();
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
    const got = await expectWhole(page, roomid, start, 350);
    const seqs = got.map((g) => g.seq as number);
    expect(seqs.every((s, i) => i === 0 || s > (seqs[i - 1] as number))).toBe(true);
    await page.close();
  }, 90_000);

  it('EventSource follows a room over SSE and, cut off, reconnects by itself with Last-Event-ID: no gap, no repeat', async () => {
    const { roomid, start } = await newRoom();
    const page = await openPage();
    const url = `${proxy.url}/api/v3/${app.appid}/sse?topic=room:${roomid}&token=${app.token}`;
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
    const got = await expectWhole(page, roomid, start, 60);
    // Each event's lastEventId is the room cursor after it: REST continues from there.
    const tail = (await app.api.get(`chat/rooms/${roomid}/updates?cursor=${got[58]?.lastEventId}`)).body.data;
    expect(tail.events.map((e: { id: string }) => e.id)).toEqual([got[59]?.id]);
    await page.close();
  }, 90_000);
});
