// Response bodies are arbitrary JSON read loosely by tests, so `any` is the honest type here.
/* eslint-disable @typescript-eslint/no-explicit-any */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newApp, uid, type TestApp } from '../helpers/api.js';
import { dropDatabase, freshDatabase } from '../helpers/fresh-database.js';
import { spawnServer, type SpawnedServer } from '../helpers/spawn.js';
import { parseSamples, total } from '../operability/prometheus-text.js';
import { newConversation, postComment } from './helpers.js';

const TOKEN = 'stored-pages-metrics-token-0123456789';
/** Nothing kept in memory: every first page is read from the database, kept there or made. */
const NO_MEMORY = { CROWD_READS_CACHE: '1kb', USER_CACHE_ENTRIES: '0', METRICS_TOKEN: TOKEN, RATE_LIMITS: 'off' };

async function started(suffix: string, env: Record<string, string>): Promise<{ server: SpawnedServer; t: TestApp; database: string | undefined }> {
  // Its own database on Postgres: the counts below are this server's alone.
  const database = await freshDatabase(process.env['DATABASE_URL'], suffix);
  const server = await spawnServer({ ...NO_MEMORY, ...env, ...(database === undefined ? {} : { DATABASE_URL: database }) });
  return { server, t: await newApp({}, server.url), database };
}

function counter(server: SpawnedServer) {
  return async (result: 'hit' | 'miss' | 'kept' | 'dropped') => {
    const text = await (await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).text();
    return total(parseSamples(text), 'engage_stored_comment_pages_total', { result });
  };
}

/** Waits until `count` has moved past `from` (the page is kept in the background, after the answer). */
async function movedPast(count: () => Promise<number>, from: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  while ((await count()) <= from) {
    if (Date.now() > deadline) throw new Error('the count did not move');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('first comment pages kept in the database', () => {
  let server: SpawnedServer;
  let t: TestApp;
  let database: string | undefined;
  let stored: ReturnType<typeof counter>;

  beforeAll(async () => {
    ({ server, t, database } = await started('stored_pages', {}));
    stored = counter(server);
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
    await dropDatabase(database);
  });

  /** Reads the page twice: the first read makes it anew (no kept page holds), the second is the page kept then, the same; returns it. */
  async function readTwice(path: string): Promise<any> {
    const [hits, misses, kept] = [await stored('hit'), await stored('miss'), await stored('kept')];
    const made = await t.api.get(path);
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    expect(await stored('miss')).toBe(misses + 1);
    await movedPast(() => stored('kept'), kept);
    const again = await t.api.get(path);
    expect(await stored('hit')).toBe(hits + 1);
    expect(again.body.data).toEqual(made.body.data);
    return made.body.data;
  }

  it('answers a page read again with the kept one, and every change of its comments, its conversation or its users with the page made anew', async () => {
    const conversation = await newConversation(t.api, { title: 'Kickoff' });
    const id = conversation.conversationid;
    const path = `comment/conversations/${id}/comments?sort=oldest`;
    const [author, fan] = [uid('author'), uid('fan')];
    const first = await postComment(t.api, id, { userid: author, displayname: 'Author', body: 'What a match' });

    let page = await readTwice(path);
    expect(page.comments.map((c: any) => c.body)).toEqual(['What a match']);

    await postComment(t.api, id, { userid: fan, displayname: 'Fan', body: 'Indeed' });
    page = await readTwice(path);
    expect(page.comments.map((c: any) => c.body)).toEqual(['What a match', 'Indeed']);
    expect(page.conversation.commentcount).toBe(2);

    expect((await t.api.put(`comment/conversations/${id}/comments/${first.id}`, { userid: author, body: 'What a game' })).status).toBe(200);
    page = await readTwice(path);
    expect(page.comments[0]).toMatchObject({ body: 'What a game', edited: true });

    expect((await t.api.post(`comment/conversations/${id}/comments/${first.id}/react`, { userid: fan, reaction: 'like', reacted: true })).status).toBe(200);
    page = await readTwice(path);
    expect(page.comments[0].likecount).toBe(1);

    expect((await t.api.post(`comment/conversations/${id}/comments/${first.id}/vote`, { userid: fan, vote: 'up' })).status).toBe(200);
    page = await readTwice(path);
    expect(page.comments[0].votescore).toBe(1);

    expect((await t.api.post(`comment/conversations/${id}/comments/${first.id}/report`, { userid: fan, reporttype: 'spam' })).status).toBe(200);
    page = await readTwice(path);
    expect(page.comments[0].reports).toHaveLength(1);

    expect((await t.api.post(`user/users/${author}`, { displayname: 'The Author' })).status).toBe(200);
    page = await readTwice(path);
    expect(page.comments[0].user.displayname).toBe('The Author');

    expect((await t.api.post(`user/users/${fan}/ban`, { applyeffect: true })).status).toBe(200);
    page = await readTwice(path);
    expect(page.comments[1].user.banned).toBe(true);

    expect((await t.api.post('comment/conversations', { conversationid: id, property: 'site', moderation: 'post', title: 'Full time' })).status).toBe(200);
    page = await readTwice(path);
    expect(page.conversation.title).toBe('Full time');

    expect((await t.api.delete(`comment/conversations/${id}/comments/${first.id}?userid=${author}`)).status).toBe(200);
    page = await readTwice(path);
    expect(page.comments.map((c: any) => c.body)).not.toContain('What a game');
  });

  it('keeps a few variants of a conversation, and no page of one user’s comments', async () => {
    const conversation = await newConversation(t.api);
    const id = conversation.conversationid;
    const author = uid('author');
    await postComment(t.api, id, { userid: author, body: 'one' });
    for (const limit of [1, 2, 3]) await readTwice(`comment/conversations/${id}/comments?limit=${limit}`);

    const fourth = `comment/conversations/${id}/comments?limit=4`;
    const kept = await stored('kept');
    expect((await t.api.get(fourth)).status).toBe(200);
    await movedPast(() => stored('kept'), kept);
    const hits = await stored('hit');
    expect((await t.api.get(fourth)).status).toBe(200);
    expect(await stored('hit')).toBe(hits);
    expect((await t.api.get(`comment/conversations/${id}/comments?limit=1`)).status).toBe(200);
    expect(await stored('hit')).toBe(hits + 1);

    const [byUserHits, byUserMisses] = [await stored('hit'), await stored('miss')];
    for (let i = 0; i < 2; i++) expect((await t.api.get(`comment/conversations/${id}/comments?filterpostedbyuserid=${author}`)).body.data.comments).toHaveLength(1);
    expect([await stored('hit'), await stored('miss')]).toEqual([byUserHits, byUserMisses]);
  });

  it('makes a page anew when a user it shows is deleted, and again when that user comes back', async () => {
    const conversation = await newConversation(t.api);
    const id = conversation.conversationid;
    const path = `comment/conversations/${id}/comments`;
    const [leaving, staying] = [uid('leaving'), uid('staying')];
    await postComment(t.api, id, { userid: leaving, displayname: 'Leaving', body: 'bye' });
    await postComment(t.api, id, { userid: staying, displayname: 'Staying', body: 'hi' });
    const byBody = (page: any, body: string) => page.comments.find((c: any) => c.body === body);
    expect(byBody(await readTwice(path), 'bye').user.displayname).toBe('Leaving');

    expect((await t.api.delete(`user/users/${leaving}`)).status).toBe(200);
    const withoutUser = await readTwice(path);
    expect(byBody(withoutUser, 'bye').user?.displayname).not.toBe('Leaving');
    expect(byBody(withoutUser, 'hi').user.displayname).toBe('Staying');

    expect((await t.api.post(`user/users/${leaving}`, { displayname: 'Back again' })).status).toBe(200);
    expect(byBody(await readTwice(path), 'bye').user.displayname).toBe('Back again');
  });

  it('answers 404 for a conversation deleted after its page was kept', async () => {
    const conversation = await newConversation(t.api);
    const id = conversation.conversationid;
    await postComment(t.api, id, { body: 'soon gone' });
    await readTwice(`comment/conversations/${id}/comments`);
    expect((await t.api.delete(`comment/conversations/${id}`)).status).toBe(200);
    expect((await t.api.get(`comment/conversations/${id}/comments`)).status).toBe(404);
  });
});

describe('first comment pages past STORED_COMMENT_PAGE_MAX', () => {
  let server: SpawnedServer;
  let t: TestApp;
  let database: string | undefined;

  beforeAll(async () => {
    ({ server, t, database } = await started('stored_pages_small', { STORED_COMMENT_PAGE_MAX: '1kb' }));
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
    await dropDatabase(database);
  });

  it('are not kept: each read makes them', async () => {
    const stored = counter(server);
    const conversation = await newConversation(t.api);
    await postComment(t.api, conversation.conversationid, { body: 'x'.repeat(200) });
    const path = `comment/conversations/${conversation.conversationid}/comments`;
    const dropped = await stored('dropped');
    expect((await t.api.get(path)).status).toBe(200);
    expect(await stored('dropped')).toBe(dropped + 1);
    expect((await t.api.get(path)).body.data.comments[0].body).toBe('x'.repeat(200));
    expect(await stored('hit')).toBe(0);
  });
});
