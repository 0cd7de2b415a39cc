import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ownServerForSuite } from '../helpers/own-server.js';
import { TcpProxy } from '../client/proxy.js';
import { post } from '../client/stream.js';
import { launch } from './browser.js';
import { expectWhole, FanSite, waitFor } from './fan-page.js';

/**
 * A page cut off while 6,000 events were posted (past the 5,000 the server replays) catches up
 * through REST `updates` pages: every event still reaches onEvent with its seq and cursor, so an
 * app that orders or de-duplicates by seq sees one unbroken sequence.
 */
// Thousands of posts from a few users: the chat rate limit would refuse them.
const own = ownServerForSuite({ RATE_LIMIT_CHAT: '1000000/10s' });
const users = ['fan1', 'fan2', 'fan3', 'fan4'];
let browser: Browser;
let context: BrowserContext;
let site: FanSite;
let proxy: TcpProxy;

beforeAll(async () => {
  proxy = await TcpProxy.start(own.server.port);
  site = await FanSite.start();
  browser = await launch();
  context = await browser.newContext();
});

afterAll(async () => {
  await browser?.close();
  await proxy?.close();
  await site?.close();
});

describe('engage-client catching up through REST in Chromium', () => {
  it('hands over 6,040 events with contiguous meta.seq and a cursor on each, across a 6,000-event cut', async () => {
    const api = own.app.api;
    const roomid = (await api.post('chat/rooms', { name: 'catch-up room' })).body.data.id as string;
    for (const userid of users) expect((await api.post(`chat/rooms/${roomid}/join`, { userid })).status).toBe(200);
    const start = (await api.get(`chat/rooms/${roomid}/updates`)).body.data.cursor as string;
    const page = await site.open(context);
    const config = { appId: own.app.appid, apiToken: own.app.token, endpoint: `${proxy.url}/api/v3`, reconnectDelayMs: 100, maxReconnectDelayMs: 1000 };
    await page.evaluate(([c, r, s]) => (window as unknown as { follow: (...a: unknown[]) => void }).follow(c, r, s), [config, roomid, start] as const);
    await post(api, roomid, users, 'before ', 20);
    await waitFor(page, 20);

    proxy.cut();
    await post(api, roomid, users, 'cut ', 6000);
    proxy.restore();
    await waitFor(page, 6020, 120_000);
    await post(api, roomid, users, 'after ', 20);
    const got = await expectWhole(page, api, roomid, start, 6040);

    const breaks = got.filter((g, i) => typeof g.seq !== 'number' || typeof g.cursor !== 'string' || (i > 0 && g.seq !== (got[i - 1]?.seq as number) + 1));
    expect(breaks).toEqual([]);
    expect(got.filter((g) => g.catchup).length).toBeGreaterThanOrEqual(1000);
    // Each event's cursor continues right after it.
    const tail = (await api.get(`chat/rooms/${roomid}/updates?cursor=${encodeURIComponent(got[6038]?.cursor as string)}`)).body.data;
    expect(tail.events.map((e: { id: string }) => e.id)).toEqual([got[6039]?.id]);
    await page.close();
  }, 540_000);
});
