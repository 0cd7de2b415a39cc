import pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { Client, manage, newApp, uid, type TestApp } from '../helpers/api.js';
import { ownServerForSuite } from '../helpers/own-server.js';
import { join, makeRoom, say } from '../chat/helpers.js';
import { userToken } from '../foundation/util.js';
import { expectRateLimited } from './helpers.js';

const databaseUrl = process.env['DATABASE_URL'];
const onPostgres = databaseUrl !== undefined && databaseUrl !== '';

describe('searches: results through the trigram indexes', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await newApp();
  });

  it('user/search: name as a substring, handle and userid as prefixes, all case-insensitive, in userid order', async () => {
    const { api } = app;
    const tag = uid('');
    const made = ['b', 'a', 'c'].map((x) => ({ userid: `srch${tag}${x}`, handle: `h${tag}${x}`, displayname: `The Keeper ${tag}${x.toUpperCase()} Fan` }));
    for (const u of made) expect((await api.post(`user/users/${u.userid}`, u)).status).toBe(200);
    const ids = async (body: Record<string, unknown>) => (await api.post('user/search', body)).body.data.users.map((u: { userid: string }) => u.userid);
    const inOrder = made.map((u) => u.userid).sort();
    expect(await ids({ name: `keeper ${tag}` })).toEqual(inOrder);
    expect(await ids({ name: `${tag}b fan` })).toEqual([`srch${tag}b`]);
    expect(await ids({ handle: `H${tag}` })).toEqual(inOrder);
    expect(await ids({ userid: `SRCH${tag}C` })).toEqual([`srch${tag}c`]);
    // A prefix only: the middle of a handle or userid finds nothing.
    expect(await ids({ handle: `${tag}a` })).toEqual([]);
    const page = await api.post('user/search', { name: `keeper ${tag}`, limit: 2 });
    expect(page.body.data.users.map((u: { userid: string }) => u.userid)).toEqual(inOrder.slice(0, 2));
    const rest = await api.post('user/search', { name: `keeper ${tag}`, limit: 2, cursor: page.body.data.cursor });
    expect(rest.body.data.users.map((u: { userid: string }) => u.userid)).toEqual(inOrder.slice(2));
  });

  it('chat/rooms?filterbyname= and searchevents by body find substrings case-insensitively, in id order', async () => {
    const { api } = app;
    const tag = uid('');
    const rooms = [];
    for (const name of [`Derby ${tag} North`, `derby ${tag} south`, `Final ${tag}`]) rooms.push(await makeRoom(api, { name }));
    const listed = await api.get(`chat/rooms?filterbyname=${encodeURIComponent(`DERBY ${tag}`)}`);
    expect(listed.body.data.rooms.map((r: { id: string }) => r.id)).toEqual(
      rooms
        .slice(0, 2)
        .map((r) => r.id)
        .sort(),
    );
    const room = rooms[2];
    const user = uid('u');
    await join(api, room.id, user);
    const said = [];
    for (const text of [`what a GOAL ${tag}`, 'nothing here', `goal ${tag} again`]) said.push((await say(api, room.id, user, text)).speech.id);
    const found = await api.post('chat/searchevents', { roomid: room.id, body: `Goal ${tag}` });
    expect(found.body.data.events.map((e: { id: string }) => e.id)).toEqual([said[2], said[0]]);
  });
});

describe('searches: a per-user budget, and a cap on searches at once', () => {
  const own = ownServerForSuite({ RATE_LIMIT_SEARCHES: '3/1m', SEARCH_MAX_CONCURRENT: '1' });

  it('counts searchevents, user/search and a filtered rooms list against one budget per user, not the plain rooms list', async () => {
    const { api, jwtsecret } = own.app;
    const asUser = async (userid: string) => api.withHeaders({ authorization: `Bearer ${await userToken(jwtsecret, { userid })}` });
    const alice = await asUser(uid('alice'));
    expect((await alice.post('chat/searchevents', { body: 'anything' })).status).toBe(200);
    expect((await alice.post('user/search', { name: 'anyone' })).status).toBe(200);
    expect((await alice.get('chat/rooms?filterbyname=any')).status).toBe(200);
    expectRateLimited(await alice.post('user/search', { name: 'anyone' }), 3);
    expectRateLimited(await alice.get('chat/rooms?filterbyname=any'), 3);
    expect((await alice.get('chat/rooms?limit=10')).status).toBe(200);
    // The user/search `userid` is a search term, not whom the search counts against.
    const bob = await asUser(uid('bob'));
    expect((await bob.post('user/search', { userid: 'alice' })).status).toBe(200);
  });

  it('counts a client token without a user token as one searcher; the server token is not counted', async () => {
    const created = await manage('createtoken', { applicationid: own.app.appid, name: 'browser', scope: 'client' }, own.server.url);
    const browser = new Client(own.server.url, own.app.appid, created.body.data.token);
    for (let i = 0; i < 3; i++) expect((await browser.post('chat/searchevents', { body: `x${i}` })).status).toBe(200);
    expectRateLimited(await browser.post('chat/searchevents', { body: 'x4' }), 3);
    for (let i = 0; i < 5; i++) expect((await own.app.api.post('chat/searchevents', { body: `y${i}` })).status).toBe(200);
  });

  // Postgres runs searches side by side on several connections. PGlite runs one statement at a
  // time, to its end, on the event loop: a search there is never begun while another runs.
  // Defined on Postgres only (the suite runs there too): not a skipped test on the embedded default.
  if (onPostgres)
    it('answers 503 in the envelope past the searches a node runs at once, and every other search in full', async () => {
      // The server token's searches draw on no budget: only the cap refuses them.
      const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => own.app.api.post('user/search', { name: `crowd ${i}` })));
      const busy = answers.filter((a) => a.status === 503);
      expect(busy.length).toBeGreaterThan(0);
      expect(busy[0]?.body).toMatchObject({ code: 503, message: expect.stringMatching(/^Too many searches/) });
      expect(busy[0]?.headers.get('retry-after')).toBe('5');
      expect(answers.filter((a) => a.status !== 503).every((a) => a.status === 200)).toBe(true);
      expect((await own.app.api.post('user/search', { name: 'after the crowd' })).status).toBe(200);
    });
});

// Defined on Postgres only, as above: PGlite has no statement timeout.
if (onPostgres)
  describe('searches: a statement timeout (Postgres)', () => {
    const own = ownServerForSuite({ RATE_LIMITS: 'off', SEARCH_TIMEOUT_MS: '1' });

    it('stops a search past it with 503, and the node keeps answering', { timeout: 120_000 }, async () => {
      const { api } = own.app;
      const room = await makeRoom(api);
      const db = new pg.Client({ connectionString: databaseUrl });
      await db.connect();
      try {
        // A room long enough that reading it all takes well over 1 ms; two letters no trigram narrows.
        await db.query(
          `insert into chat_events (id, app_id, room_id, seq, event_type, body, ts)
         select $1 || lpad(i::text, 8, '0'), $2, $1, i, 'speech', 'filler', i from generate_series(1, 100000) i`,
          [room.id, own.app.appid],
        );
      } finally {
        await db.end();
      }
      const slow = await api.post('chat/searchevents', { roomid: room.id, body: 'zq' });
      expect(slow.status).toBe(503);
      expect(slow.body.message).toMatch(/^The search took longer than 1 ms and was stopped/);
      expect(slow.headers.get('retry-after')).toBe('5');
      expect((await api.get(`chat/rooms/${room.id}`)).status).toBe(200);
    });
  });
