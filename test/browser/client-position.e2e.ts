import type { BrowserContext, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { baseUrl, uid, type TestApp } from '../helpers/api.js';
import type { TcpProxy } from '../client/proxy.js';
import { post } from '../client/stream.js';
import { expectWhole, type FanSite, fanSuite } from './fan-page.js';

/**
 * A subscription knows where it stands from the moment it is made: a fan who subscribes with no
 * cursor and is cut off before the room's next event (or its first) still gets every event
 * posted during the cut, with engage-client (loaded from the server's own path) and with the
 * browser's EventSource. And the client comes back within a second once the network does.
 */
let context: BrowserContext;
let site: FanSite;
let proxy: TcpProxy;
let app: TestApp;
const users = Array.from({ length: 50 }, (_, i) => `fan${i}`);
type Win = { live: { state: string }; subscribed?: string | null; opens: number; states: { type: string; at: number; reason?: string; delayMs?: number }[] };
const suite = fanSuite();
beforeAll(() => {
  ({ app, proxy, site, context } = suite());
});

/** A room with `history` messages already posted, and the cursor after them. */
async function newRoom(history: number): Promise<{ roomid: string; start: string }> {
  const roomid = (await app.api.post('chat/rooms', { name: uid('first cut') })).body.data.id as string;
  for (const userid of users) expect((await app.api.post(`chat/rooms/${roomid}/join`, { userid })).status).toBe(200);
  await post(app.api, roomid, users, 'history ', history);
  return { roomid, start: (await app.api.get(`chat/rooms/${roomid}/updates`)).body.data.cursor as string };
}

/** The page follows the room with engage-client as the README shows: no cursor. */
async function follow(page: Page, roomid: string, config: Record<string, unknown> = {}): Promise<void> {
  const c = { appId: app.appid, apiToken: app.token, endpoint: `${proxy.url}/api/v3`, ...config };
  await page.evaluate(([c, r]) => (window as unknown as { follow: (...a: unknown[]) => void }).follow(c, r, undefined), [c, roomid] as const);
  await page.waitForFunction(() => (window as unknown as Win).live.state === 'connected');
  await page.waitForFunction(() => typeof (window as unknown as Win).subscribed === 'string');
}

const fromServer = () => `${baseUrl()}/client/engage-client.js`;

describe('the first cut, before any event reached the page', () => {
  for (const history of [0, 25]) {
    it(`engage-client subscribed without a cursor to a room with ${history} events gets all 60 posted during and after a cut`, async () => {
      const { roomid, start } = await newRoom(history);
      const page = await site.open(context, fromServer());
      await follow(page, roomid);
      expect(await page.evaluate(() => (window as unknown as Win).subscribed)).toBe(start);

      proxy.cut();
      await page.waitForFunction(() => (window as unknown as Win).live.state !== 'connected');
      await post(app.api, roomid, users, 'during ', 50);
      proxy.restore();
      await page.waitForFunction(() => (window as unknown as Win).live.state === 'connected', undefined, { timeout: 15_000 });
      await post(app.api, roomid, users, 'after ', 10);
      const got = await expectWhole(page, app.api, roomid, start, 60);
      const seqs = got.map((g) => g.seq as number);
      expect(seqs.every((s, i) => i === 0 || s === (seqs[i - 1] as number) + 1)).toBe(true);
      await page.close();
    }, 90_000);

    it(`EventSource opened on a room with ${history} events gets all 60 posted during and after a cut (id: at open)`, async () => {
      const { roomid, start } = await newRoom(history);
      const page = await site.open(context);
      await page.evaluate((u) => (window as unknown as { stream: (u: string) => void }).stream(u), `${proxy.url}/api/v3/${app.appid}/sse?topic=room:${roomid}&token=${app.token}`);
      await page.waitForFunction(() => (window as unknown as Win).opens === 1, undefined, { timeout: 10_000 });

      proxy.cut();
      await post(app.api, roomid, users, 'during ', 50);
      proxy.restore();
      await page.waitForFunction(() => (window as unknown as Win).opens >= 2, undefined, { timeout: 15_000 });
      await post(app.api, roomid, users, 'after ', 10);
      await expectWhole(page, app.api, roomid, start, 60);
      await page.close();
    }, 90_000);
  }
});

describe('coming back after a cut', () => {
  /**
   * Milliseconds from `since` (Date.now() in the page's clock) to the next connecting and
   * connected, and to when the client had planned that attempt (the `delayMs` of the
   * `disconnected` before it; NaN when something else, online or visible, brought it forward).
   */
  async function backAfter(page: Page, since: number): Promise<{ planned: number; connecting: number; connected: number }> {
    await page.waitForFunction((t) => (window as unknown as Win).states.some((s) => s.type === 'connected' && s.at >= t), since, { timeout: 10_000 });
    const states = await page.evaluate(() => (window as unknown as Win).states);
    const at = (i: number) => (states[i]?.at ?? Number.NaN) - since;
    const lastBefore = (end: number, type: string) =>
      states
        .slice(0, end)
        .map((s) => s.type)
        .lastIndexOf(type);
    const connected = states.findIndex((s) => s.type === 'connected' && s.at >= since);
    const connecting = lastBefore(connected, 'connecting');
    const before = states[lastBefore(connecting, 'disconnected')];
    return { planned: (before?.at ?? Number.NaN) + (before?.delayMs ?? Number.NaN) - since, connecting: at(connecting), connected: at(connected) };
  }

  it('reconnects within a second of the network coming back after a 3 s cut the browser did not notice (default backoff)', async () => {
    const { roomid } = await newRoom(0);
    const page = await site.open(context);
    await follow(page, roomid);
    proxy.cut();
    await new Promise((r) => setTimeout(r, 3_000));
    const restored = await page.evaluate(() => Date.now());
    proxy.restore();
    const back = await backAfter(page, restored);
    // The wait the client chose; the timer may fire late on a loaded machine, and the handshake takes its time.
    expect(back.planned, JSON.stringify(back)).toBeLessThanOrEqual(1_000);
    expect(back.connected, JSON.stringify(back)).toBeLessThanOrEqual(2_000);
    await page.close();
  }, 60_000);

  it('reconnects at once when the page becomes visible again, instead of waiting out its backoff', async () => {
    const { roomid } = await newRoom(0);
    const page = await site.open(context);
    await follow(page, roomid, { reconnectDelayMs: 15_000, maxReconnectDelayMs: 30_000 });
    proxy.cut();
    await page.waitForFunction(() => (window as unknown as Win).live.state !== 'connected');
    await new Promise((r) => setTimeout(r, 500));
    proxy.restore();
    const shown = await page.evaluate(() => {
      Object.defineProperty(document, 'visibilityState', { value: 'visible', configurable: true });
      document.dispatchEvent(new Event('visibilitychange'));
      return Date.now();
    });
    const back = await backAfter(page, shown);
    expect(back.connected, JSON.stringify(back)).toBeLessThanOrEqual(1_000);
    await page.close();
  }, 60_000);

  it("reconnects within a second of the browser's online event after a 3 s offline spell", async () => {
    const { roomid } = await newRoom(0);
    const page = await site.open(context);
    await follow(page, roomid);
    await context.setOffline(true);
    await page.waitForFunction(() => (window as unknown as Win).states.some((s) => s.reason === 'offline'));
    await new Promise((r) => setTimeout(r, 3_000));
    const restored = await page.evaluate(() => Date.now());
    await context.setOffline(false);
    const back = await backAfter(page, restored);
    expect(back.connecting, JSON.stringify(back)).toBeLessThanOrEqual(1_000);
    expect(back.connected, JSON.stringify(back)).toBeLessThanOrEqual(1_500);
    await page.close();
  }, 60_000);
});
