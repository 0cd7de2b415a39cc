// Response bodies are arbitrary JSON; tests read them loosely and assert on the values.
/* eslint-disable @typescript-eslint/no-explicit-any */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseUrl, manage, newApp, uid, type TestApp } from '../helpers/api.js';
import { userToken } from '../foundation/util.js';
import { MANAGE_TOKEN } from '../helpers/spawn.js';
import { startReceiver } from '../webhooks/receiver.js';
import { launch, shot } from './browser.js';

let browser: Browser;
let context: BrowserContext;
let app: TestApp;
let jwt: string;
const MODERATOR = 'mod-' + Date.now().toString(36);

beforeAll(async () => {
  app = await newApp();
  jwt = await userToken(app.jwtsecret, { userid: MODERATOR, role: 'moderator' });
  browser = await launch();
  context = await browser.newContext({ viewport: { width: 1180, height: 760 } });
});

afterAll(async () => {
  await browser?.close();
});

/** A page signed in through the form, as the moderator, on the given view. */
async function signedIn(hash = '#/rooms', page?: Page, userJwt = jwt): Promise<Page> {
  const p = page ?? (await context.newPage());
  await p.goto(`${baseUrl()}/console/${hash}`);
  await p.getByLabel('Application id').fill(app.appid);
  await p.getByLabel('Client token').fill(app.token);
  await p.getByLabel('Moderator’s user token (JWT)').fill(userJwt);
  await p.getByRole('button', { name: 'Sign in' }).click();
  await p.getByTestId('live-status').filter({ hasText: 'Live' }).waitFor();
  return p;
}

async function newRoom(fields: Record<string, unknown> = {}): Promise<string> {
  const created = await app.api.post('chat/rooms', { name: uid('Room '), ...fields });
  expect(created.status).toBe(200);
  return created.body.data.id;
}

async function joinAndSay(roomid: string, userid: string, text: string): Promise<any> {
  expect((await app.api.post(`chat/rooms/${roomid}/join`, { userid, displayname: `Fan ${userid.slice(0, 6)}` })).status).toBe(200);
  const said = await app.api.post(`chat/rooms/${roomid}/command`, { userid, command: text });
  expect(said.status, JSON.stringify(said.body)).toBe(200);
  return said.body.data.speech;
}

describe('moderation console in Chromium', () => {
  it('serves the console and signs in with a client token and a moderator token, showing neither', async () => {
    const page = await context.newPage();
    const res = await page.goto(`${baseUrl()}/console/`);
    expect(res?.headers()['content-type']).toBe('text/html; charset=utf-8');
    await expect(page.getByRole('heading', { name: 'Engage console' }).isVisible()).resolves.toBe(true);
    await shot(page, 'sign-in');
    await signedIn('#/rooms', page);
    await page.getByRole('heading', { name: 'Rooms' }).waitFor();
    const html = await page.content();
    expect(html).toContain(MODERATOR);
    expect(html).not.toContain(app.token);
    expect(html).not.toContain(jwt);
    // Signing out forgets the session: the form comes back.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Client token').waitFor();
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
    await page.close();
  });

  it('signs in with the manage token: picks or names the application, mints a token and forgets the manage token', async () => {
    // More applications than one page of the listing (200), the one to pick made last: it is on a later page.
    for (let i = 0; i < 21; i++) await Promise.all(Array.from({ length: 10 }, () => manage('createapplication', { name: uid('filler') })));
    const latest = await newApp();
    const page = await context.newPage();
    const withManageToken = async (token: string) => {
      await page.goto(`${baseUrl()}/console/`);
      await page.getByLabel('The manage token').check();
      await page.getByLabel('Manage token', { exact: true }).fill(token);
      await page.getByRole('button', { name: 'Continue' }).click();
      // Servers that list applications offer a choice (or refuse a wrong token at once); others ask for the id.
      const application = page.getByLabel(/^Application/);
      await application.or(page.getByRole('alert')).waitFor();
      if (!(await application.isVisible())) return;
      if ((await application.evaluate((el) => el.tagName)) === 'SELECT') await application.selectOption(latest.appid);
      else await application.fill(latest.appid);
      await page.getByLabel('Act as user id (announcements, purges)').fill('night-shift');
      await page.getByRole('button', { name: 'Sign in' }).click();
    };
    await withManageToken('not-the-manage-token-at-all');
    await page.getByRole('alert').filter({ hasText: 'management token' }).waitFor();
    await withManageToken(MANAGE_TOKEN);
    await page.getByRole('heading', { name: 'Rooms' }).waitFor();
    await page.getByTestId('live-status').filter({ hasText: 'Live' }).waitFor();
    expect(await page.content()).not.toContain(MANAGE_TOKEN);
    const stored = await page.evaluate(() => JSON.stringify(sessionStorage));
    expect(stored).not.toContain(MANAGE_TOKEN);
    expect(stored).toContain('night-shift');
    await page.close();
  });

  it('shows a message posted over REST live in the room view, with participants and presence', async () => {
    const roomid = await newRoom();
    await joinAndSay(roomid, uid('u'), 'warming up');
    const page = await signedIn(`#/rooms/${roomid}`);
    await page.getByText('warming up').waitFor();
    const text = `goal scored ${uid()}`;
    await joinAndSay(roomid, uid('u'), text);
    await page.getByText(text).waitFor({ timeout: 10_000 });
    // Presence is the room's telemetry context, pushed over the socket.
    const beat = await app.api.post(`telemetry/contexts/${roomid}/presence/viewers/heartbeat`, { userid: uid('viewer') });
    expect(beat.status).toBe(200);
    await page.getByTestId('presence').filter({ hasText: '1' }).waitFor({ timeout: 10_000 });
    // Two fans joined: the participant count follows within its refresh interval.
    await page.getByTestId('participants').filter({ hasText: /^2$/ }).waitFor({ timeout: 10_000 });
    await page.close();
  });

  it('creates a room from the form, then closes and reopens it', async () => {
    const page = await signedIn('#/rooms');
    const name = uid('Final ');
    await page.getByText('Create a room').click();
    await page.getByLabel('Name', { exact: true }).fill(name);
    await page.getByLabel('Moderation').selectOption('pre');
    await page.getByRole('button', { name: 'Create room' }).click();
    const card = page.locator('li.room-card', { hasText: name });
    await card.waitFor();
    const listed = await app.api.get(`chat/rooms?filterByName=${encodeURIComponent(name)}`);
    const room = listed.body.data.rooms[0];
    expect(room).toMatchObject({ name, moderation: 'pre', open: true });
    await shot(page, 'rooms');
    await page.getByRole('button', { name: `Close ${name}` }).click();
    await card.getByText('closed').waitFor();
    expect((await app.api.get(`chat/rooms/${room.id}`)).body.data.open).toBe(false);
    await page.getByRole('button', { name: `Open ${name}` }).click();
    await card.getByText('open', { exact: true }).waitFor();
    expect((await app.api.get(`chat/rooms/${room.id}`)).body.data.open).toBe(true);
    await page.close();
  });

  it('posts an announcement as the moderator', async () => {
    const roomid = await newRoom();
    const page = await signedIn(`#/rooms/${roomid}`);
    await page.getByText('No messages yet.').waitFor();
    await page.getByLabel('Announcement, shown to everyone in the room').fill('Kick-off in five minutes');
    await page.getByRole('button', { name: 'Announce' }).click();
    await page.locator('li.message.announcement', { hasText: 'Kick-off in five minutes' }).waitFor();
    const feed = await app.api.get(`chat/rooms/${roomid}/updates`);
    expect(feed.body.data.events).toContainEqual(expect.objectContaining({ eventtype: 'announcement', body: 'Kick-off in five minutes', userid: MODERATOR }));
    await page.close();
  });

  it('lists a reported message in the queue with its reason; approving it publishes it again', async () => {
    const roomid = await newRoom({ maxreports: 1 });
    const text = `is this spam ${uid()}`;
    const event = await joinAndSay(roomid, uid('author'), text);
    const reporter = uid('reporter');
    expect((await app.api.post(`chat/rooms/${roomid}/join`, { userid: reporter })).status).toBe(200);
    const page = await signedIn('#/moderation');
    const queue = page.getByRole('region', { name: /^Chat messages/ });
    await queue.getByText('Nothing waiting.').waitFor();
    expect((await app.api.post(`chat/rooms/${roomid}/events/${event.id}/report`, { userid: reporter, reporttype: 'spam' })).status).toBe(200);
    // Polled: the report shows up within a few seconds without a reload.
    const card = queue.locator('li.card', { hasText: text });
    await card.waitFor({ timeout: 10_000 });
    expect(await card.getByText('spam').first().isVisible()).toBe(true);
    const hidden = await app.api.get(`chat/rooms/${roomid}/updates`);
    expect(hidden.body.data.events.map((e: any) => e.id)).not.toContain(event.id);
    await shot(page, 'moderation-queue');
    await card.getByRole('button', { name: /^Approve/ }).click();
    await queue.getByText('Nothing waiting.').waitFor();
    const shown = await app.api.get(`chat/rooms/${roomid}/updates`);
    expect(shown.body.data.events.map((e: any) => e.id)).toContain(event.id);
    await page.close();
  });

  it('holds a comment of a pre-moderated conversation in the comments queue until approved', async () => {
    const conversationid = uid('conv');
    expect((await app.api.post('comment/conversations', { conversationid, property: 'news', moderation: 'pre' })).status).toBe(200);
    const page = await signedIn('#/moderation');
    const queue = page.getByRole('region', { name: /^Comments/ });
    await queue.getByText('Nothing waiting.').waitFor();
    const text = `first! ${uid()}`;
    const posted = await app.api.post(`comment/conversations/${conversationid}/comments`, { userid: uid('reader'), displayname: 'Reader', body: text });
    expect(posted.status).toBe(200);
    const card = queue.locator('li.card', { hasText: text });
    await card.waitFor({ timeout: 10_000 });
    const listed = () => app.api.get(`comment/conversations/${conversationid}/comments`).then((r) => r.body.data.comments.map((c: any) => c.body));
    expect(await listed()).not.toContain(text);
    await card.getByRole('button', { name: /^Approve/ }).click();
    await queue.getByText('Nothing waiting.').waitFor();
    expect(await listed()).toContain(text);
    await page.close();
  });

  it('bans a user from a message, after which their posts are refused', async () => {
    const roomid = await newRoom();
    const troll = uid('troll');
    const text = `buy followers ${uid()}`;
    await joinAndSay(roomid, troll, text);
    const fan = uid('fan');
    const liked = await joinAndSay(roomid, fan, 'what a match');
    const page = await signedIn(`#/rooms/${roomid}`);
    const message = page.locator('li.message', { hasText: text });
    await message.waitFor();
    await message.getByText('Moderate').click();
    await message.getByRole('button', { name: /^Ban / }).click();
    await page.locator('.effects li', { hasText: troll }).filter({ hasText: 'ban' }).waitFor();
    const refused = await app.api.post(`chat/rooms/${roomid}/command`, { userid: troll, command: 'still here' });
    expect(refused.status).toBe(403);
    // Reactions arrive live on the message they target.
    expect((await app.api.post(`chat/rooms/${roomid}/events/${liked.id}/react`, { userid: fan, reaction: 'like', reacted: true })).status).toBe(200);
    await page.locator('li.message', { hasText: 'what a match' }).getByRole('list', { name: 'Reactions' }).getByText('like').waitFor();
    await shot(page, 'room-live');
    await page.close();
  });

  it('moves the poll chart when a vote arrives', async () => {
    const created = await app.api.post('poll/poll/create', { title: 'Man of the match' });
    expect(created.status).toBe(200);
    const pollid = created.body.data.id;
    const added = await app.api.post(`poll/poll/${pollid}/choice`, { choices: [{ title: 'Keeper' }, { title: 'Striker' }] });
    expect(added.status).toBe(200);
    const choices: any[] = added.body.data;
    const striker = choices.find((c) => c.title === 'Striker');
    const page = await signedIn(`#/polls/${pollid}`);
    const bar = page.locator('rect.bar[data-choice="Striker"]');
    await expect(bar.getAttribute('data-count')).resolves.toBe('0');
    const voted = await app.api.post(`poll/poll/${pollid}/response`, { userid: uid('voter'), choiceid: striker.id });
    expect(voted.status).toBe(200);
    await page.locator('rect.bar[data-choice="Striker"][data-count="1"]').waitFor({ timeout: 10_000 });
    expect(Number(await bar.getAttribute('width'))).toBeGreaterThan(0);
    expect(await page.getByTestId('count-Striker').textContent()).toContain('100%');
    await shot(page, 'poll');
    await page.close();
  });

  it('lists webhooks for an admin with their delivery log, and disables one', async () => {
    const receiver = await startReceiver(() => 200);
    try {
      const hook = await app.api.post('webhook/hooks', { label: uid('hook'), url: receiver.url, enabled: true, type: 'postpublish', events: ['chatspeech'] });
      expect(hook.status).toBe(200);
      const roomid = await newRoom();
      await joinAndSay(roomid, uid('u'), 'deliver me');
      await receiver.waitFor(1);
      // A moderator may not see webhooks: the view says so.
      const page = await signedIn(`#/webhooks/${hook.body.data.id}`);
      await page.getByRole('alert').filter({ hasText: 'admin' }).first().waitFor();
      await page.getByRole('button', { name: 'Sign out' }).click();
      const admin = await userToken(app.jwtsecret, { userid: uid('admin'), role: 'admin' });
      await signedIn(`#/webhooks/${hook.body.data.id}`, page, admin);
      const row = page.locator('tbody tr', { hasText: 'chatspeech' }).first();
      await row.waitFor({ timeout: 15_000 });
      expect(await row.textContent()).toMatch(/200.*\d+ ms/);
      await shot(page, 'webhooks');
      await page.getByRole('button', { name: `Disable ${hook.body.data.label}` }).click();
      await page.getByText('disabled', { exact: true }).waitFor();
      const listed = await app.api.get('webhook/hooks');
      expect(listed.body.data.webhooks.find((h: any) => h.id === hook.body.data.id).enabled).toBe(false);
      await page.close();
    } finally {
      await receiver.close();
    }
  });

  it('fits a phone screen: the room view reflows to one column', async () => {
    const roomid = await newRoom();
    await joinAndSay(roomid, uid('u'), 'hello from the stands');
    const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    const page = await phone.newPage();
    await signedIn(`#/rooms/${roomid}`, page);
    await page.getByText('hello from the stands').waitFor();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await shot(page, 'room-phone');
    await phone.close();
  });
});
