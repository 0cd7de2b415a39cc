import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { baseUrl, newApp, uid, type TestApp } from '../helpers/api.js';
import { SseReader } from './sse-reader.js';
import { connect, type WsClient } from './ws-client.js';

/**
 * A deleted room takes its live subscriptions with it: sockets get `unsubscribed` with the reason
 * and keep their other topics; event streams get a last `topic.ended` event and end.
 */
let app: TestApp;
const readers: SseReader[] = [];
const sockets: WsClient[] = [];
beforeAll(async () => {
  app = await newApp();
});
afterEach(async () => {
  for (const r of readers.splice(0)) await r.close();
  for (const s of sockets.splice(0)) s.close();
});

async function room(): Promise<string> {
  const id = (await app.api.post('chat/rooms', { name: uid('ending') })).body.data.id as string;
  expect((await app.api.post(`chat/rooms/${id}/join`, { userid: 'ender' })).status).toBe(200);
  return id;
}

async function say(roomid: string, text: string): Promise<string> {
  const res = await app.api.post(`chat/rooms/${roomid}/command`, { userid: 'ender', command: text });
  expect(res.status).toBe(200);
  return res.body.data.speech.id as string;
}

async function stream(query: string): Promise<SseReader> {
  const reader = await SseReader.open(`${app.api.base}/api/v3/${app.appid}/sse?${query}&token=${app.token}`);
  readers.push(reader);
  expect(reader.status).toBe(200);
  return reader;
}

async function socket(): Promise<WsClient> {
  const ws = await connect(baseUrl(), app.appid, app.token);
  sockets.push(ws);
  return ws;
}

const within = <T>(promise: Promise<T>, ms: number) => Promise.race([promise, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`not within ${ms} ms`)), ms))]);

describe('a deleted room', () => {
  it('ends the WebSocket subscriptions of its topic with unsubscribed and the reason; the socket keeps its other topics', async () => {
    const [doomed, other] = [await room(), await room()];
    const live = await socket();
    expect((await live.subscribe(`room:${doomed}`)).type).toBe('subscribed');
    expect((await live.subscribe(`room:${other}`)).type).toBe('subscribed');
    const cursor = (await app.api.get(`chat/rooms/${doomed}/updates`)).body.data.cursor as string;
    const resumed = await socket();
    expect(await resumed.subscribe(`room:${doomed}`, cursor)).toMatchObject({ type: 'subscribed', resumed: true });

    expect((await app.api.delete(`chat/rooms/${doomed}`)).status).toBe(200);
    for (const ws of [live, resumed]) {
      expect(await ws.next((f) => f['type'] === 'unsubscribed')).toEqual({ type: 'unsubscribed', topic: `room:${doomed}`, reason: 'deleted' });
    }
    const id = await say(other, 'still here');
    expect((await live.next((f) => f['type'] === 'event' && f['topic'] === `room:${other}`)).data.id).toBe(id);
    // The subscription is gone: unsubscribing is refused, subscribing again finds no room.
    live.send({ type: 'unsubscribe', topic: `room:${doomed}` });
    expect((await live.next((f) => f['type'] === 'error' && f['code'] === 'not_subscribed')).topic).toBe(`room:${doomed}`);
    expect(await live.subscribe(`room:${doomed}`)).toMatchObject({ type: 'error', code: 'not_found' });
  });

  it('ends its event streams with a last topic.ended event, whatever else they follow; other rooms streams stay open', async () => {
    const [doomed, other] = [await room(), await room()];
    const poll = (await app.api.post('poll/poll/create', { title: 'Q?' })).body.data.id as string;
    const alone = await stream(`topic=room:${doomed}`);
    const mixed = await stream(`topic=room:${other}&topic=room:${doomed}&topic=poll:${poll}`);
    const bystander = await stream(`topic=room:${other}`);
    await say(doomed, 'last words');
    await alone.count(1);

    expect((await app.api.delete(`chat/rooms/${doomed}`)).status).toBe(200);
    for (const reader of [alone, mixed]) {
      await within(reader.ended(), 5000);
      const last = reader.events.at(-1);
      expect(last?.event).toBe('topic.ended');
      expect(JSON.parse(last?.data ?? '')).toEqual({ topic: `room:${doomed}`, reason: 'deleted' });
    }
    expect(alone.events.map((e) => e.event)).toEqual(['chat.event', 'topic.ended']);
    const id = await say(other, 'after');
    expect(JSON.parse((await bystander.count(1))[0]?.data ?? '').id).toBe(id);
    // A browser reconnecting by itself is refused: EventSource stops there.
    const again = await SseReader.open(`${app.api.base}/api/v3/${app.appid}/sse?topic=room:${doomed}&token=${app.token}`);
    readers.push(again);
    expect(again.status).toBe(404);
  });

  it('is not alone: a deleted poll or conversation ends its subscriptions the same way', async () => {
    const poll = (await app.api.post('poll/poll/create', { title: 'Q?' })).body.data.id as string;
    const conversationid = uid('conv');
    expect((await app.api.post('comment/conversations', { conversationid, property: 'site', moderation: 'post' })).status).toBe(200);
    const ws = await socket();
    expect((await ws.subscribe(`poll:${poll}`)).type).toBe('subscribed');
    expect((await ws.subscribe(`conversation:${conversationid}`)).type).toBe('subscribed');
    const reader = await stream(`topic=conversation:${conversationid}`);
    await reader.count(0);

    expect((await app.api.delete(`poll/poll/${poll}`)).status).toBe(200);
    expect(await ws.next((f) => f['type'] === 'unsubscribed' && f['topic'] === `poll:${poll}`)).toMatchObject({ reason: 'deleted' });
    expect((await app.api.delete(`comment/conversations/${conversationid}`)).status).toBe(200);
    expect(await ws.next((f) => f['type'] === 'unsubscribed' && f['topic'] === `conversation:${conversationid}`)).toMatchObject({ reason: 'deleted' });
    await within(reader.ended(), 5000);
    expect(reader.events.map((e) => e.event)).toEqual(['topic.ended']);
  });
});
