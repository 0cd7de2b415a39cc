import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterEach, expect } from 'vitest';
import { baseUrl, newApp, type Client, type TestApp } from '../helpers/api.js';
import { startedForSuite } from '../helpers/for-suite.js';
import { TcpProxy } from '../client/proxy.js';
import { feedAfter, gaps } from '../client/stream.js';
import { launch } from './browser.js';

/**
 * A fan's page, served by its own origin (not the API's): it loads engage-client (from this
 * origin, or from the URL in `?client=`, e.g. the server's own path) and records what a room
 * subscription or an EventSource hands over, with the client's state changes and their times.
 */
const CLIENT_JS = readFileSync(new URL('../../client/dist/index.js', import.meta.url));
const PAGE = `<!doctype html><meta charset="utf-8"><title>fan page</title>
<script type="module">
const { LiveClient } = await import(new URLSearchParams(location.search).get('client') ?? '/engage-client.js');
window.received = [];
window.states = [];
window.follow = (config, roomid, cursor) => {
  const live = new LiveClient(config);
  for (const type of ['connecting', 'connected', 'disconnected']) live.on(type, (e) => window.states.push({ type, at: Date.now(), ...e }));
  window.sub = live.subscribe('room:' + roomid, {
    cursor,
    onSubscribed: (info) => (window.subscribed = info.cursor ?? null),
    onEvent: (data, meta) => window.received.push({ id: data.id, seq: meta.seq ?? null, cursor: meta.cursor ?? null, catchup: meta.catchup === true }),
  });
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

export type Got = { id: string; seq?: number | null; cursor?: string | null; catchup?: boolean; lastEventId?: string }[];

export class FanSite {
  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<FanSite> {
    const server = createServer((req, res) => {
      if (req.url === '/engage-client.js') res.writeHead(200, { 'content-type': 'text/javascript' }).end(CLIENT_JS);
      else res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    return new FanSite(server, `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}/`);
  }

  /** A new page, loaded; `client` is where it imports engage-client from. */
  async open(context: BrowserContext, client?: string): Promise<Page> {
    const page = await context.newPage();
    await page.goto(client === undefined ? this.url : `${this.url}?client=${encodeURIComponent(client)}`);
    await page.waitForFunction(() => (window as unknown as { ready?: boolean }).ready === true);
    return page;
  }

  close(): Promise<void> {
    return new Promise((r) => this.server.close(() => r()));
  }
}

export const received = (page: Page): Promise<Got> => page.evaluate(() => (window as unknown as { received: Got }).received);

export async function waitFor(page: Page, count: number, ms = 30_000): Promise<Got> {
  const deadline = Date.now() + ms;
  for (;;) {
    const got = await received(page);
    if (got.length >= count) return got;
    if (Date.now() > deadline) throw new Error(`the page has ${got.length} of ${count} events`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The page's stream against the room's feed after `start`: every event once, in order. */
export async function expectWhole(page: Page, api: Client, roomid: string, start: string, total: number, ms?: number): Promise<Got> {
  const expected = await feedAfter(api, roomid, start);
  expect(expected).toHaveLength(total);
  await waitFor(page, total, ms).catch(() => undefined);
  await new Promise((r) => setTimeout(r, 300));
  const got = await received(page);
  const ids = got.map((g) => g.id);
  expect({ gaps: gaps(expected, ids), repeats: ids.length - new Set(ids).size, count: ids.length }).toEqual({ gaps: 0, repeats: 0, count: total });
  expect(ids).toEqual(expected);
  return got;
}

export interface FanSuite {
  app: TestApp;
  /** Between the pages and the shared server: cuts the network. */
  proxy: TcpProxy;
  site: FanSite;
  browser: Browser;
  context: BrowserContext;
}

/** For a suite: an app on the shared server, a proxy to it, the fan site and a Chromium context; the network is back after every test. */
export function fanSuite(): () => FanSuite {
  const started = startedForSuite(
    async (): Promise<FanSuite> => {
      const browser = await launch();
      return { app: await newApp(), proxy: await TcpProxy.start(Number(new URL(baseUrl()).port)), site: await FanSite.start(), browser, context: await browser.newContext() };
    },
    async (suite) => {
      await suite.browser.close();
      await suite.proxy.close();
      await suite.site.close();
    },
  );
  afterEach(async () => {
    started().proxy.restore();
    await started().context.setOffline(false);
  });
  return started;
}
