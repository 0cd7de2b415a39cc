import { gunzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { CompactStream } from '../../client/src/compact-stream.js';
import { baseUrl, newApp, uid, type TestApp } from '../helpers/api.js';
import { rawGet } from '../helpers/raw-get.js';
import { SseReader, type SseEvent } from './sse-reader.js';

const FANS = ['ann', 'ben', 'cat', 'dan', 'eve', 'fay', 'gus', 'hal'];

/** Event streams as a browser's EventSource reads them (gzipped, since it takes gzip) and in compact data (`?encoding=compact`). */
describe('event streams, gzipped and compact', () => {
  let app: TestApp;
  let room: string;
  let from: string;
  const streamUrl = (query = '') => `${baseUrl()}/api/v3/${app.appid}/sse?topic=room:${room}&token=${encodeURIComponent(app.token)}${query}`;
  const say = async (userid: string, command: string) => expect((await app.api.post(`chat/rooms/${room}/command`, { userid, command })).status).toBe(200);

  beforeAll(async () => {
    app = await newApp();
    room = (await app.api.post('chat/rooms', { name: uid('stream'), enableenterandexit: false })).body.data.id;
    // Eight authors: each stays inside the per-user chat budget.
    for (const userid of FANS) await app.api.post(`chat/rooms/${room}/join`, { userid, displayname: `Fan ${userid}`, pictureurl: `https://cdn.example.com/avatars/${userid}.jpg` });
    await say('ann', 'before the cursor');
    from = (await app.api.get(`chat/rooms/${room}/updates`)).body.data.cursor;
    for (let i = 0; i < 120; i++) await say(FANS[i % FANS.length] as string, `message ${i}`);
  }, 60_000);

  /** The REST objects a compact stream's events stand for, read with engage-client's decoder, with their event names and the stream's ids. */
  function readBack(events: SseEvent[]): { event: string; data: unknown }[] {
    const stream = new CompactStream();
    const [dictionary, ...rest] = events;
    expect(dictionary?.event).toBe('dictionary');
    stream.frames({ type: 'ready', appid: app.appid, encoding: 'compact', dictionary: JSON.parse(dictionary?.data as string) });
    stream.frames({ type: 'ref', topic: `room:${room}`, t: 0 });
    return rest.flatMap((e) => stream.frames(JSON.parse(e.data)).map((f) => ({ event: e.event === 'batch' ? (f.event as string) : e.event, data: f.data })));
  }

  it('a compact stream carries the dictionary, then the same objects as a plain one: replayed in batches, then live; and resumes from its last id', async () => {
    const plain = await SseReader.open(streamUrl(), { 'last-event-id': from });
    const compact = await SseReader.open(streamUrl('&encoding=compact'), { 'last-event-id': from });
    await plain.count(120);
    await compact.count(3);
    await say('ann', 'live one');
    await say('ben', 'live two');
    await plain.count(122);
    await new Promise((r) => setTimeout(r, 300));
    const read = readBack(compact.events);
    expect(compact.events.filter((e) => e.event === 'batch')).toHaveLength(2);
    expect(read).toEqual(plain.events.map((e) => ({ event: e.event, data: JSON.parse(e.data) })));
    expect(compact.lastId).toBe(plain.lastId);
    const bytes = (r: SseReader) => r.events.reduce((sum, e) => sum + e.data.length, 0);
    expect(bytes(compact)).toBeLessThan(bytes(plain) / 3);
    plain.close();
    compact.close();
  });

  it('goes gzipped to a client that takes gzip: one gzip member, closed when the server ends the stream, of the same text as the plain stream', async () => {
    const other = (await app.api.post('chat/rooms', { name: uid('ending'), enableenterandexit: false })).body.data.id;
    for (const userid of FANS) await app.api.post(`chat/rooms/${other}/join`, { userid });
    const start = (await app.api.get(`chat/rooms/${other}/updates`)).body.data.cursor;
    for (let i = 0; i < 30; i++) expect((await app.api.post(`chat/rooms/${other}/command`, { userid: FANS[(i + 3) % FANS.length], command: `m ${i}` })).status).toBe(200);
    const path = `/api/v3/${app.appid}/sse?topic=room:${other}&token=${encodeURIComponent(app.token)}`;
    const answers = Promise.all([rawGet(path, { 'accept-encoding': 'gzip', 'last-event-id': start }), rawGet(path, { 'last-event-id': start })]);
    await new Promise((r) => setTimeout(r, 500));
    // The room's deletion ends both streams, after a last topic.ended event.
    expect((await app.api.delete(`chat/rooms/${other}`)).status).toBe(200);
    const [gzipped, plainAnswer] = await answers;
    expect(gzipped.headers['content-encoding']).toBe('gzip');
    expect(plainAnswer.headers['content-encoding']).toBeUndefined();
    expect(String(gzipped.headers['vary'])).toContain('accept-encoding');
    const text = gunzipSync(gzipped.body).toString();
    expect(text).toBe(plainAnswer.body.toString());
    expect(text.match(/event:chat\.event/g)).toHaveLength(30);
    expect(text).toContain('event:topic.ended');
    expect(gzipped.body.length).toBeLessThan(plainAnswer.body.length / 4);
  });
});
