import { beforeAll, describe, expect, it } from 'vitest';
import { baseUrl, newApp, uid, type TestApp } from '../helpers/api.js';
import { connect, type Frame } from './ws-client.js';

const say = (app: TestApp, roomid: string, userid: string, command: string) => app.api.post(`chat/rooms/${roomid}/command`, { userid, command });
const speech = (f: Frame) => f.type === 'event' && f.event === 'chat.event' && f.data.eventtype === 'speech';

describe('room topics', () => {
  let a: TestApp;
  let b: TestApp;
  let roomid: string;
  beforeAll(async () => {
    [a, b] = await Promise.all([newApp(), newApp()]);
    roomid = (await a.api.post('chat/rooms', { name: 'live', enableenterandexit: false })).body.data.id;
    const joined = await a.api.post(`chat/rooms/${roomid}/join`, { userid: 'u1', displayname: 'U One' });
    expect(joined.status).toBe(200);
  });

  it('deliver a posted message once, as the chat.event REST returns, with seq and the updates cursor', async () => {
    const client = await connect(baseUrl(), a.appid, a.token);
    const head = (await a.api.get(`chat/rooms/${roomid}/updates`)).body.data.cursor as string;
    const subscribed = await client.subscribe(`room:${roomid}`);
    // Where the subscription stands, before any event: resuming from there misses nothing.
    expect(subscribed).toEqual({ type: 'subscribed', topic: `room:${roomid}`, cursor: head, seq: expect.any(Number) });
    const posted = await say(a, roomid, 'u1', 'hello live');
    expect(posted.status).toBe(200);
    const id = posted.body.data.speech.id;
    const frame = await client.next((f) => speech(f) && f.data.id === id);
    const rest = await a.api.get(`chat/rooms/${roomid}/events/${id}`);
    expect(frame.data).toEqual(rest.body.data);
    expect(frame.topic).toBe(`room:${roomid}`);
    expect(frame.seq).toBe(subscribed.seq + 1);
    const after = await a.api.get(`chat/rooms/${roomid}/updates?cursor=${frame.cursor}`);
    expect(after.body.data.events).toEqual([]);
    await client.settle();
    await new Promise((r) => setTimeout(r, 300));
    expect(client.frames.filter((f) => speech(f) && f.data.id === id)).toHaveLength(1);
    client.close();
  });

  it('resume from a cursor: missed events first, then live ones, no gap and no repeat', async () => {
    const room = (await a.api.post('chat/rooms', { name: 'resume', enableenterandexit: false })).body.data.id;
    const joined = await a.api.post(`chat/rooms/${room}/join`, { userid: 'u1', displayname: 'U One' });
    const cursor = joined.body.data.eventscursor.cursor as string;
    for (let i = 1; i <= 3; i++) expect((await say(a, room, 'u1', `missed ${i}`)).status).toBe(200);

    const client = await connect(baseUrl(), a.appid, a.token);
    const during = Promise.all([4, 5, 6, 7, 8].map((i) => say(a, room, 'u1', `during ${i}`)));
    client.send({ type: 'subscribe', topic: `room:${room}`, cursor });
    await during;
    const afterGrace = new Promise((r) => setTimeout(r, 2500)).then(() => say(a, room, 'u1', 'after 9'));
    await afterGrace;
    const events = await client.collect(speech, 9, 8000);
    await new Promise((r) => setTimeout(r, 300));
    const all = client.frames.filter(speech);
    expect(all).toHaveLength(9);
    const seqs = all.map((f) => f.seq as number);
    expect(new Set(seqs).size).toBe(9);
    expect([...seqs].sort((x, y) => x - y)).toEqual(Array.from({ length: 9 }, (_, i) => (seqs.reduce((m, s) => Math.min(m, s)) as number) + i));
    expect(events.slice(0, 3).map((f) => f.data.body)).toEqual(['missed 1', 'missed 2', 'missed 3']);
    expect(all.at(-1)?.data.body).toBe('after 9');
    expect(client.frames.find((f) => f.type === 'subscribed')).toEqual({ type: 'subscribed', topic: `room:${room}`, resumed: true });
    client.close();
  });

  it('refuse a room of another application, an unknown room and a malformed cursor', async () => {
    const fromB = await connect(baseUrl(), b.appid, b.token);
    expect(await fromB.subscribe(`room:${roomid}`)).toMatchObject({ type: 'error', code: 'not_found' });
    expect(await fromB.subscribe(`room:${uid('none')}`)).toMatchObject({ type: 'error', code: 'not_found' });
    const fromA = await connect(baseUrl(), a.appid, a.token);
    expect(await fromA.subscribe(`room:${roomid}`, '%%%')).toMatchObject({ type: 'error', code: 'bad_request' });
    expect(await fromA.subscribe(`room:${roomid}`)).toMatchObject({ type: 'subscribed' });
    expect(await fromA.subscribe('context:c', 'abc')).toMatchObject({ type: 'error', code: 'cursor_not_supported' });
    fromA.close();
    fromB.close();
  });
});

describe('resume limit: 5,000 events behind', () => {
  it('replays a cursor 4,999 or exactly 5,000 behind and continues live; refuses one 5,001 behind before saying subscribed', { timeout: 300_000 }, async () => {
    const app = await newApp();
    const room = (await app.api.post('chat/rooms', { name: 'deep', enableenterandexit: false })).body.data.id as string;
    // 250 speakers with 20 messages each: every one well inside the per-user chat budget.
    const speakers = Array.from({ length: 250 }, (_, n) => `u${n}`);
    for (let n = 0; n < speakers.length; n += 25) {
      const joined = await Promise.all(speakers.slice(n, n + 25).map((userid) => app.api.post(`chat/rooms/${room}/join`, { userid })));
      expect(joined.every((j) => j.status === 200)).toBe(true);
    }
    const start = (await app.api.get(`chat/rooms/${room}/updates`)).body.data.cursor as string;
    // 5,000 messages, 25 at a time.
    for (let i = 0; i < 5000; i += 25) {
      const posted = await Promise.all(Array.from({ length: 25 }, (_, k) => say(app, room, speakers[(i + k) % speakers.length] as string, `m${i + k}`)));
      expect(posted.every((p) => p.status === 200)).toBe(true);
    }

    const exact = await connect(baseUrl(), app.appid, app.token);
    expect(await exact.subscribe(`room:${room}`, start)).toEqual({ type: 'subscribed', topic: `room:${room}`, resumed: true });
    const replayed = await exact.collect(speech, 5000, 60_000);
    expect(new Set(replayed.map((f) => f.data.id)).size).toBe(5000);
    const live = await say(app, room, 'u1', 'live after 5000');
    expect((await exact.next((f) => speech(f) && f.data.id === live.body.data.speech.id, 10_000)).data.body).toBe('live after 5000');
    await exact.settle();
    expect(exact.frames.filter((f) => f.type === 'error')).toEqual([]);
    exact.close();

    // `start` is now 5,001 events behind.
    const tooOld = await connect(baseUrl(), app.appid, app.token);
    const answer = await tooOld.subscribe(`room:${room}`, start);
    expect(answer).toMatchObject({ type: 'error', code: 'bad_request', topic: `room:${room}` });
    await say(app, room, 'u1', 'not for the refused socket');
    await tooOld.settle();
    await new Promise((r) => setTimeout(r, 300));
    expect(tooOld.frames.filter((f) => f.type === 'subscribed' || f.type === 'event')).toEqual([]);
    // Not subscribed: it may subscribe again, and unsubscribe says so.
    tooOld.send({ type: 'unsubscribe', topic: `room:${room}` });
    expect(await tooOld.next((f) => f.type === 'error' && f.code === 'not_subscribed')).toBeTruthy();
    tooOld.close();

    // 5,002 events now follow `start`: the first event's cursor is 5,001 behind and the second's 5,000;
    // after the live message the second loop posts, the fourth's is 4,999.
    const [first, second, , fourth] = replayed as [Frame, Frame, Frame, Frame];
    const tooOldByOne = await connect(baseUrl(), app.appid, app.token);
    expect(await tooOldByOne.subscribe(`room:${room}`, first.cursor)).toMatchObject({ type: 'error', code: 'bad_request' });
    tooOldByOne.close();
    for (const [from, behind] of [
      [second, 5000],
      [fourth, 4999],
    ] as const) {
      const client = await connect(baseUrl(), app.appid, app.token);
      expect(await client.subscribe(`room:${room}`, from.cursor)).toMatchObject({ type: 'subscribed', resumed: true });
      const events = await client.collect((f) => f.type === 'event', behind, 60_000);
      expect(events).toHaveLength(behind);
      const next = await say(app, room, 'u1', `live after ${behind}`);
      expect((await client.next((f) => speech(f) && f.data.id === next.body.data.speech.id, 10_000)).data.body).toBe(`live after ${behind}`);
      client.close();
    }
  });
});
