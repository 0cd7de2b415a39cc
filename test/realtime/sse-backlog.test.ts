import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newApp, type TestApp } from '../helpers/api.js';
import { spawnServer, type SpawnedServer } from '../helpers/spawn.js';
import { SseReader } from './sse-reader.js';

/**
 * An event stream whose reader is slow to take in what it is sent: the bytes the socket could not
 * take wait in the server, and must go out as the reader takes them in, not only when something
 * else is written (the stream's next event, or its comment every 15 s).
 */
describe('an event stream holding more than its socket takes', () => {
  let server: SpawnedServer;
  let app: TestApp;
  let room: string;
  let from: string;
  const ids: string[] = [];

  beforeAll(async () => {
    // A resume of about 6 MB goes out as one write: a slow reader is not cut off for it here.
    server = await spawnServer({ RATE_LIMITS: 'off', WS_MAX_BACKPRESSURE: '64mb' });
    app = await newApp({}, server.url);
    room = (await app.api.post('chat/rooms', { name: 'backlog', enableenterandexit: false })).body.data.id;
    await app.api.post(`chat/rooms/${room}/join`, { userid: 'speaker' });
    from = (await app.api.get(`chat/rooms/${room}/updates?limit=1`)).body.data.cursor;
    // Payloads gzip cannot shrink: more than the kernel's buffers hold for a reader that does not read yet.
    for (let i = 0; i < 100; i++) {
      const res = await app.api.post(`chat/rooms/${room}/command`, { userid: 'speaker', command: `big ${i}`, custompayload: randomBytes(45_000).toString('base64') });
      expect(res.status).toBe(200);
      ids.push(res.body.data.speech.id);
    }
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
  });

  for (const encoding of ['gzip', 'identity']) {
    it(`sends what it holds at the reader's pace though nothing more is posted (${encoding})`, async () => {
      const reader = await SseReader.open(`${server.url}/api/v3/${app.appid}/sse?topic=room:${room}&token=${app.token}`, { 'last-event-id': from, 'accept-encoding': encoding }, 1_500);
      try {
        expect(reader.headers.get('content-encoding')).toBe(encoding === 'gzip' ? 'gzip' : null);
        // Within the 15 s after which the stream's comment would push out what the server holds (about 2 s here on a quiet machine).
        const deadline = Date.now() + 12_000;
        while (reader.events.length < ids.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
        expect(reader.events.map((e) => JSON.parse(e.data).id)).toEqual(ids);
      } finally {
        await reader.close();
      }
    });
  }
});
