import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { userToken } from '../foundation/util.js';
import { manage, newApp, uid, type TestApp } from '../helpers/api.js';
import { SseReader } from './sse-reader.js';

/** GET /api/v3/{appid}/sse: the WebSocket's topics as server-sent events, resumable by Last-Event-ID. */
let app: TestApp;
const readers: SseReader[] = [];
beforeAll(async () => {
  app = await newApp();
});
afterEach(async () => {
  for (const r of readers.splice(0)) await r.close();
});

async function open(query: string, headers: Record<string, string> = {}): Promise<SseReader> {
  const reader = await SseReader.open(`${app.api.base}/api/v3/${app.appid}/sse?${query}`, headers);
  readers.push(reader);
  return reader;
}

async function room(): Promise<string> {
  const id = (await app.api.post('chat/rooms', { name: uid('sse') })).body.data.id as string;
  expect((await app.api.post(`chat/rooms/${id}/join`, { userid: 'sse-fan' })).status).toBe(200);
  return id;
}

async function say(roomid: string, prefix: string, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const res = await app.api.post(`chat/rooms/${roomid}/command`, { userid: 'sse-fan', command: `${prefix} ${i}` });
    expect(res.status).toBe(200);
    ids.push(res.body.data.speech.id as string);
  }
  return ids;
}

describe('server-sent events', () => {
  it('streams a room: event name, the REST object as data, the room cursor as id; CORS and no-cache headers', async () => {
    const roomid = await room();
    const sse = await open(`topic=room:${roomid}&token=${app.token}`, { origin: 'https://fans.example' });
    expect(sse.status).toBe(200);
    expect(sse.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(sse.headers.get('cache-control')).toContain('no-cache');
    expect(sse.headers.get('access-control-allow-origin')).toBe('*');
    const ids = await say(roomid, 'hello', 3);
    const events = await sse.count(3);
    expect(events.map((e) => e.event)).toEqual(['chat.event', 'chat.event', 'chat.event']);
    expect(events.map((e) => JSON.parse(e.data).id)).toEqual(ids);
    const updates = (await app.api.get(`chat/rooms/${roomid}/updates?cursor=${events[1]?.id}`)).body.data;
    expect(updates.events.map((e: { id: string }) => e.id)).toEqual([ids[2]]);
    expect(sse.comments).toBeGreaterThanOrEqual(1);
  });

  it("sends the room's position as id: when it opens, so a stream cut before its first event resumes from there", async () => {
    const roomid = await room();
    const head = (await app.api.get(`chat/rooms/${roomid}/updates`)).body.data.cursor as string;
    const first = await open(`topic=room:${roomid}&token=${app.token}`);
    for (const deadline = Date.now() + 5_000; first.lastId === undefined && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 20));
    expect(first.lastId).toBe(head);
    expect(first.events).toEqual([]);
    await first.close();
    const during = await say(roomid, 'during', 3);
    const second = await open(`topic=room:${roomid}&token=${app.token}`, { 'last-event-id': first.lastId as string });
    expect((await second.count(3)).map((e) => JSON.parse(e.data).id)).toEqual(during);
    await second.close();
  });

  it('resumes from Last-Event-ID with no gap and no repeat', async () => {
    const roomid = await room();
    const first = await open(`topic=room:${roomid}&token=${app.token}`);
    const before = await say(roomid, 'before', 4);
    const seen = await first.count(4);
    await first.close();
    const during = await say(roomid, 'during', 5);
    const second = await open(`topic=room:${roomid}&token=${app.token}`, { 'last-event-id': seen[3]?.id as string });
    const after = await say(roomid, 'after', 2);
    const resumed = await second.count(7);
    await new Promise((r) => setTimeout(r, 300));
    expect(second.events.map((e) => JSON.parse(e.data).id)).toEqual([...during, ...after]);
    expect(seen.map((e) => JSON.parse(e.data).id)).toEqual(before);
    expect(resumed).toHaveLength(7);
  });

  it('carries several topics: poll standings beside a room, and user notifications with a user token', async () => {
    const roomid = await room();
    const pollid = (await app.api.post('poll/poll/create', { title: 'p' })).body.data.id as string;
    const choiceid = (await app.api.post(`poll/poll/${pollid}/choice`, { choices: [{ title: 'a' }] })).body.data[0].id as string;
    const sse = await open(`topic=room:${roomid}&topic=poll:${pollid}&token=${app.token}`);
    await say(roomid, 'x', 1);
    expect((await app.api.post(`poll/poll/${pollid}/response`, { userid: 'voter', choiceid })).status).toBe(200);
    const events = await sse.count(2);
    expect(events.map((e) => e.event).sort()).toEqual(['chat.event', 'poll.standings']);
    expect(events.every((e) => e.id !== undefined)).toBe(true);
  });

  it('refuses as the WebSocket does, with an HTTP status before the stream opens', async () => {
    const roomid = await room();
    expect((await open(`topic=room:${roomid}&token=wrong-token`)).status).toBe(403);
    expect((await open(`topic=nonsense&token=${app.token}`)).status).toBe(400);
    expect((await open(`token=${app.token}`)).status).toBe(400);
    expect((await open(`topic=room:no-such-room&token=${app.token}`)).status).toBe(404);
    // A client token (the one a page holds) follows a user's notifications only with that user's token.
    const clientToken = (await manage('createtoken', { applicationid: app.appid, name: 'page', scope: 'client' })).body.data.token as string;
    expect((await open(`topic=user:someone&token=${clientToken}`)).status).toBe(403);
    const jwt = await userToken(app.jwtsecret, { userid: 'someone' });
    expect((await open(`topic=user:someone&token=${clientToken}&jwt=${jwt}`)).status).toBe(200);
    expect((await open(`topic=user:someone&token=${clientToken}&jwt=${jwt}x`)).status).toBe(403);
    expect((await open(`topic=room:${roomid}&token=${app.token}`, { 'last-event-id': 'not-a-cursor' })).status).toBe(400);
    const many = Array.from({ length: 101 }, (_, i) => `topic=poll:p${i}`).join('&');
    expect((await open(`${many}&token=${app.token}`)).status).toBe(400);
  });
});
