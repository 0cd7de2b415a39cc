import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseUrl, manage, newApp, uid, type TestApp } from '../helpers/api.js';
import { userToken } from '../foundation/util.js';
import { launch } from './browser.js';

/**
 * client/README.md's complete page, as a developer would use it: its five constants filled in,
 * served from another origin, loading engage-client from the server's own path. It must show
 * the room live and send what the user types.
 */
const README = readFileSync(new URL('../../client/README.md', import.meta.url), 'utf8');
const EXAMPLE = /## A complete page[\s\S]*?```html\n([\s\S]*?)```/.exec(README)?.[1] ?? '';

let browser: Browser;
let site: Server;
let siteUrl: string;
let app: TestApp;
let page = '';

beforeAll(async () => {
  app = await newApp();
  site = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page));
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  const address = site.address();
  siteUrl = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}/`;
  browser = await launch();
});

afterAll(async () => {
  await browser?.close();
  await new Promise((r) => site?.close(r));
});

function filledIn(constants: Record<string, string>): string {
  let html = EXAMPLE.replaceAll('https://engage.example.com', baseUrl());
  for (const [name, value] of Object.entries(constants)) {
    const pattern = new RegExp(`const ${name} = '[^']*';`);
    expect(html, name).toMatch(pattern);
    html = html.replace(pattern, `const ${name} = ${JSON.stringify(value)};`);
  }
  return html;
}

describe("client/README.md's example page in Chromium", () => {
  it('shows the room live with a client token and the user JWT, and sends what the user types', async () => {
    expect(EXAMPLE).toContain('<script type="module">');
    const clientToken = (await manage('createtoken', { applicationid: app.appid, name: 'page', scope: 'client' })).body.data.token as string;
    const roomid = (await app.api.post('chat/rooms', { name: uid('readme room') })).body.data.id as string;
    const fan = uid('fan');
    const other = uid('other');
    expect((await app.api.post(`chat/rooms/${roomid}/join`, { userid: other, handle: other.slice(-15) })).status).toBe(200);
    expect((await app.api.post(`chat/rooms/${roomid}/command`, { userid: other, command: 'before the page' })).status).toBe(200);
    page = filledIn({ APP_ID: app.appid, CLIENT_TOKEN: clientToken, USER_ID: fan, USER_JWT: await userToken(app.jwtsecret, { userid: fan }), ROOM_ID: roomid });

    const tab = await (await browser.newContext()).newPage();
    const errors: string[] = [];
    tab.on('pageerror', (err) => errors.push(String(err)));
    await tab.goto(siteUrl);
    await tab.waitForFunction(() => document.getElementById('status')?.textContent === 'live', undefined, { timeout: 15_000 });
    const items = () => tab.$$eval('#messages li', (lis) => lis.map((li) => li.textContent));
    expect(await items()).toEqual([`${other.slice(-15)}: before the page`]);

    expect((await app.api.post(`chat/rooms/${roomid}/command`, { userid: other, command: 'hello from the stands' })).status).toBe(200);
    await tab.waitForFunction(() => document.querySelectorAll('#messages li').length === 2);
    await tab.fill('#say input', 'go team');
    await tab.click('#say button');
    await tab.waitForFunction(() => document.querySelectorAll('#messages li').length === 3);
    const shown = await items();
    expect(shown[1]).toBe(`${other.slice(-15)}: hello from the stands`);
    expect(shown[2]).toMatch(/: go team$/);
    const feed = (await app.api.get(`chat/rooms/${roomid}/listpreviousevents`)).body.data.events as { body: string; userid: string }[];
    expect(feed.some((e) => e.body === 'go team' && e.userid === fan)).toBe(true);
    expect(errors).toEqual([]);
  }, 60_000);
});
