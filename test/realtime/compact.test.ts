import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseUrl, type Client, newApp, uid, type TestApp } from '../helpers/api.js';
import { spawnServer, type SpawnedServer } from '../helpers/spawn.js';
import { userToken } from '../foundation/util.js';
import { connect, open, type Frame, type WsClient } from './ws-client.js';

/**
 * Compact frames (docs/realtime.md): a socket that asks for them reads back, with engage-client's
 * own decoder (WsClient), exactly the frames a plain socket gets, in a fraction of the bytes.
 */
const events = (c: WsClient, topic: string) => c.frames.filter((f) => f['type'] === 'event' && f['topic'] === topic);
const wireOf = (c: WsClient) => c.received.filter((r) => r.text.startsWith('['));
const picture = (userid: string) => `https://cdn.example.com/avatars/${userid}/large.jpg`;

async function fan(api: Client, roomid: string, userid: string): Promise<void> {
  await api.post(`user/users/${userid}`, { handle: userid, displayname: `Fan ${userid}`, pictureurl: picture(userid), profileurl: `https://example.com/fans/${userid}` });
  expect((await api.post(`chat/rooms/${roomid}/join`, { userid })).status).toBe(200);
}

const say = async (api: Client, roomid: string, userid: string, command: string) => {
  const res = await api.post(`chat/rooms/${roomid}/command`, { userid, command });
  expect(res.status).toBe(200);
  return res.body.data.speech as { id: string };
};

/** Waits until both sockets hold `count` events of the topic. */
async function both(plain: WsClient, compact: WsClient, topic: string, count: number): Promise<void> {
  await plain.collect((f) => f['type'] === 'event' && f['topic'] === topic, count);
  await compact.collect((f) => f['type'] === 'event' && f['topic'] === topic, count);
}

describe('compact frames', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await newApp();
  });

  it('read back exactly the frames a plain socket gets, on every topic kind, in a fraction of the bytes', async () => {
    const { api, appid, token, jwtsecret } = app;
    const roomid = (await api.post('chat/rooms', { name: uid('match'), enableenterandexit: false })).body.data.id as string;
    const [ann, ben, cat] = [uid('ann'), uid('ben'), uid('cat')];
    for (const userid of [ann, ben, cat]) await fan(api, roomid, userid);
    const conversationid = uid('conv');
    await api.post('comment/conversations', { conversationid, property: 'site', moderation: 'post' });
    const poll = (await api.post('poll/poll/create', { ownerid: ann, title: 'Man of the match' })).body.data;
    const choices = (await api.post(`poll/poll/${poll.id}/choice`, { choices: [{ title: 'Ann' }, { title: 'Ben' }] })).body.data;
    const jwt = await userToken(jwtsecret, { userid: ann });
    const topics = [`room:${roomid}`, `conversation:${conversationid}`, `poll:${poll.id}`, 'context:match-1', `user:${ann}`];
    const plain = await connect(baseUrl(), appid, token, jwt, false);
    const compact = await connect(baseUrl(), appid, token, jwt, true);
    for (const topic of topics) {
      expect(await plain.subscribe(topic)).toMatchObject({ type: 'subscribed' });
      expect(await compact.subscribe(topic)).toMatchObject({ type: 'subscribed' });
    }
    expect(compact.frames[0]).toMatchObject({ type: 'ready', appid, userid: ann, encoding: 'compact', compress: 'deflate-raw', dictionary: { id: expect.any(String) } });

    const goal = await say(api, roomid, ann, 'What a goal! Did you see that? Unbelievable finish from the edge of the box');
    await say(api, roomid, ben, 'Incredible');
    await say(api, roomid, ann, 'Again me');
    await api.post(`chat/rooms/${roomid}/events/${goal.id}/react`, { userid: ben, reaction: 'like', reacted: true });
    await api.post(`chat/rooms/${roomid}/events/${goal.id}/react`, { userid: cat, reaction: 'like', reacted: true });
    await api.post(`chat/rooms/${roomid}/command`, { userid: cat, command: 'custom', customtype: 'score', custompayload: '{"home":1}', customtags: ['live'] });
    const reply = await api.post(`chat/rooms/${roomid}/events/${goal.id}/reply`, { userid: cat, body: 'reply!' });
    await api.put(`chat/rooms/${roomid}/events/${reply.body.data.id}`, { userid: cat, body: 'edited reply' });
    await api.post(`user/users/${ann}`, { displayname: 'Ann, renamed' });
    await say(api, roomid, ann, 'After the rename');
    const first = await api.post(`comment/conversations/${conversationid}/comments`, { userid: ann, body: 'first!' });
    await api.post(`comment/conversations/${conversationid}/comments/${first.body.data.id}`, { userid: ben, body: 'a reply to you' });
    await api.post(`comment/conversations/${conversationid}/comments/${first.body.data.id}/vote`, { userid: cat, vote: 'up' });
    await api.post(`comment/conversations/${conversationid}/comments/${first.body.data.id}/react`, { userid: cat, reaction: 'like', reacted: true });
    await api.post(`poll/poll/${poll.id}/response`, { userid: ben, choiceid: choices[0].id });
    await api.post('telemetry/contexts/match-1/presence/viewers/heartbeat', { userid: ann });

    await both(plain, compact, topics[0] as string, 9);
    for (const topic of topics.slice(1)) await both(plain, compact, topic, topic.startsWith('context:') ? 2 : 1);
    await plain.settle();
    await compact.settle();
    await new Promise((r) => setTimeout(r, 700));
    // A context's first snapshot is made for each subscriber (its own `asof`); what follows is pushed to all.
    // Adding the choices pushed standings too (no responses yet), which reach only a socket subscribed by then: the vote's are compared.
    const beforeTheVote = (f: Frame) => f['topic'] === `poll:${poll.id}` && f['data'].totalresponses === 0;
    const shared = (c: WsClient, topic: string) =>
      events(c, topic)
        .slice(topic.startsWith('context:') ? 1 : 0)
        .filter((f) => !beforeTheVote(f));
    for (const topic of topics) expect(shared(compact, topic), topic).toEqual(shared(plain, topic));
    // The latest events a poll returns are what the frames carried (nothing changed them since).
    const roomEvents = events(compact, topics[0] as string);
    const latest = (await api.get(`chat/rooms/${roomid}/updates?cursor=${roomEvents.at(-3)?.['cursor']}`)).body.data.events;
    expect(roomEvents.slice(-2).map((f: Frame) => f['data'])).toEqual(latest);

    const bytes = (c: WsClient) => c.received.filter((r) => r.text.includes('"event"') || r.text.startsWith('[')).reduce((sum, r) => sum + r.bytes, 0);
    expect(bytes(compact)).toBeLessThan(bytes(plain) * 0.35);
    // An author is sent whole once, then by its number while unchanged; a liked event as its changes.
    const roomRef = compact.received.map((r) => JSON.parse(r.text) as Frame).find((f) => f['type'] === 'ref' && f['topic'] === topics[0])?.['t'];
    const roomFrames = wireOf(compact)
      .map((r) => JSON.parse(r.text) as unknown[])
      .filter((f) => f[0] === roomRef);
    const again = roomFrames.find((f) => (f[1] as { b?: string }).b === 'Again me') as unknown[];
    expect((again[1] as { U: unknown }).U).toEqual(expect.any(Number));
    const liked = roomFrames.filter((f) => (f[1] as { e?: string }).e === 'reaction').map((f) => (f[1] as { rt: Record<string, unknown> }).rt);
    expect(liked.every((rt) => typeof rt['^'] === 'number' && !('b' in rt))).toBe(true);
    plain.close();
    compact.close();
  });

  it('give a subscriber joining a busy room the objects its frames refer to first, so its first frame reads back', async () => {
    const { api, appid, token } = app;
    const roomid = (await api.post('chat/rooms', { name: uid('match'), enableenterandexit: false })).body.data.id as string;
    const authors = [uid('a'), uid('b')];
    for (const userid of authors) await fan(api, roomid, userid);
    const early = await connect(baseUrl(), appid, token, undefined, true);
    await early.subscribe(`room:${roomid}`);
    const first = await say(api, roomid, authors[0] as string, 'hello');
    await say(api, roomid, authors[1] as string, 'hello too');
    await early.collect((f) => f['type'] === 'event', 2);

    const late = await connect(baseUrl(), appid, token, undefined, true);
    const plain = await connect(baseUrl(), appid, token, undefined, false);
    await late.subscribe(`room:${roomid}`);
    await plain.subscribe(`room:${roomid}`);
    await say(api, roomid, authors[0] as string, 'known author');
    // The liked event came before the newcomer: it goes whole to subscribers taking references.
    await api.post(`chat/rooms/${roomid}/events/${first.id}/react`, { userid: authors[1], reaction: 'like', reacted: true });
    await both(plain, late, `room:${roomid}`, 2);
    await early.collect((f) => f['type'] === 'event', 4);
    expect(events(early, `room:${roomid}`).slice(2)).toEqual(events(plain, `room:${roomid}`));
    const refs = late.received.map((r) => JSON.parse(r.text) as Frame).find((f) => f['type'] === 'refs');
    expect(((refs?.['r'] ?? []) as { k?: string }[]).filter((object) => object.k !== 'url')).toHaveLength(2);
    const frame = JSON.parse(wireOf(late)[0]?.text as string) as unknown[];
    expect((frame[1] as { U: unknown }).U).toEqual(expect.any(Number));
    expect(events(late, `room:${roomid}`)).toEqual(events(plain, `room:${roomid}`));
    for (const c of [early, late, plain]) c.close();
  });
});

describe('compact frames on a server of their own (WS_COMPACT_WINDOW=6, WS_COMPACT_SNAPSHOT=2, rate limits off)', () => {
  let server: SpawnedServer;
  let app: TestApp;
  beforeAll(async () => {
    server = await spawnServer({ WS_COMPACT_WINDOW: '6', WS_COMPACT_SNAPSHOT: '2', RATE_LIMITS: 'off' });
    app = await newApp({}, server.url);
  }, 90_000);
  afterAll(() => server?.stop());

  it('send a newcomer objects whole for the window, then by number, and it reads back every frame', async () => {
    const { api, appid, token } = app;
    const roomid = (await api.post('chat/rooms', { name: uid('match'), enableenterandexit: false })).body.data.id as string;
    const authors = [uid('a'), uid('b'), uid('c')];
    for (const userid of authors) await fan(api, roomid, userid);
    const early = await connect(server.url, appid, token, undefined, true);
    await early.subscribe(`room:${roomid}`);
    for (const userid of authors) await say(api, roomid, userid, `hello from ${userid}`);
    await early.collect((f) => f['type'] === 'event', 3);

    const late = await connect(server.url, appid, token, undefined, true);
    const plain = await connect(server.url, appid, token, undefined, false);
    await late.subscribe(`room:${roomid}`);
    await plain.subscribe(`room:${roomid}`);
    for (let i = 0; i < 12; i++) await say(api, roomid, authors[i % 3] as string, `round ${i}`);
    await both(plain, late, `room:${roomid}`, 12);
    expect(late.received.some((r) => r.text.startsWith('{"type":"refs"'))).toBe(false);
    const users = wireOf(late).map((r) => (JSON.parse(r.text) as [number, { U: unknown }])[1].U);
    // Whole (numbered) for the window's 6 frames, by number after.
    expect(users.slice(0, 6).every((u) => typeof u === 'object')).toBe(true);
    expect(users.slice(6).every((u) => typeof u === 'number')).toBe(true);
    expect(events(late, `room:${roomid}`)).toEqual(events(plain, `room:${roomid}`));
    for (const c of [early, late, plain]) c.close();
  });

  it('replay a resume in batches, deflated for a client that takes it, the same bytes for every subscriber past its first slice', async () => {
    const { api, appid, token } = app;
    const roomid = (await api.post('chat/rooms', { name: uid('match'), enableenterandexit: false })).body.data.id as string;
    const authors = [uid('a'), uid('b'), uid('c'), uid('d')];
    for (const userid of authors) await fan(api, roomid, userid);
    const cursors: string[] = [];
    for (let i = 0; i < 230; i += 10) {
      const posted = await Promise.all(Array.from({ length: 10 }, (_, j) => say(api, roomid, authors[(i + j) % 4] as string, `message ${i + j}`)));
      expect(posted).toHaveLength(10);
      cursors.push((await api.get(`chat/rooms/${roomid}/updates?limit=1`)).body.data.cursor as string);
    }
    const resume = async (cursor: string, how: 'plain' | 'compact' | 'text') => {
      const url = how === 'plain' ? '' : how === 'compact' ? '?encoding=compact&compress=deflate-raw' : '?encoding=compact';
      const client = await open(`${server.url.replace(/^http/, 'ws')}/api/v3/${appid}/ws${url}`, { 'x-api-token': token });
      await client.next((f) => f['type'] === 'ready');
      client.send({ type: 'subscribe', topic: `room:${roomid}`, cursor });
      return client;
    };
    const [fromTen, fromSixty, plain, text] = await Promise.all([
      resume(cursors[0] as string, 'compact'),
      resume(cursors[5] as string, 'compact'),
      resume(cursors[0] as string, 'plain'),
      resume(cursors[0] as string, 'text'),
    ]);
    for (const [client, count] of [
      [fromTen, 220],
      [fromSixty, 170],
      [plain, 220],
      [text, 220],
    ] as const)
      await client.collect((f) => f['type'] === 'event', count);
    expect(events(fromTen, `room:${roomid}`)).toEqual(events(plain, `room:${roomid}`));
    expect(events(text, `room:${roomid}`)).toEqual(events(plain, `room:${roomid}`));
    expect(events(fromSixty, `room:${roomid}`)).toEqual(events(plain, `room:${roomid}`).slice(50));
    // Slices end at seq 100 and 200: after its first, every slice is the same deflated frame for both.
    const batches = (c: WsClient) => c.received.filter((r) => r.binary);
    expect(batches(fromTen)).toHaveLength(3);
    expect(batches(fromSixty)).toHaveLength(3);
    expect(batches(fromTen).slice(1)).toEqual(batches(fromSixty).slice(1));
    expect(text.received.filter((r) => r.binary)).toHaveLength(0);
    const deflated = batches(fromTen).reduce((sum, r) => sum + r.bytes, 0);
    const plainBytes = plain.received.filter((r) => r.text.includes('"event"')).reduce((sum, r) => sum + r.bytes, 0);
    expect(deflated).toBeLessThan(plainBytes / 10);
    for (const c of [fromTen, fromSixty, plain, text]) c.close();
  });
});
