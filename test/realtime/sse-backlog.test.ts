import { randomBytes } from 'node:crypto';
import { get, type IncomingMessage } from 'node:http';
import { createGunzip } from 'node:zlib';
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

  /** Waits until the stream has just had its comment (every 15 s, to every stream at once). */
  async function justAfterComment(): Promise<void> {
    const ticker = await SseReader.open(`${server.url}/api/v3/${app.appid}/sse?topic=room:${room}&token=${app.token}`);
    const within = Date.now() + 20_000;
    // The first comment is the one the stream opens with.
    while (ticker.comments < 2 && Date.now() < within) await new Promise((r) => setTimeout(r, 10));
    await ticker.close();
    expect(ticker.comments).toBeGreaterThanOrEqual(2);
  }

  for (const encoding of ['gzip', 'identity']) {
    it(`sends what it holds at the reader's pace though nothing more is posted (${encoding})`, { timeout: 60_000 }, async () => {
      // Started just after a comment: until the next, 15 s on, no write but the stream's own can push out what the server holds.
      await justAfterComment();
      const deadline = Date.now() + 12_000;
      const url = `${server.url}/api/v3/${app.appid}/sse?topic=room:${room}&token=${app.token}`;
      const res = await new Promise<IncomingMessage>((resolve, reject) => get(url, { headers: { 'last-event-id': from, 'accept-encoding': encoding } }, resolve).on('error', reject));
      try {
        expect(res.statusCode).toBe(200);
        expect(res.headers['content-encoding']).toBe(encoding === 'gzip' ? 'gzip' : undefined);
        // Not read for 1.5 s: the kernel's buffers fill, and the server holds the rest.
        res.pause();
        await new Promise((r) => setTimeout(r, 1_500));
        let text = '';
        const body = encoding === 'gzip' ? res.pipe(createGunzip()) : res;
        body.on('data', (chunk: Buffer) => {
          text += chunk.toString();
        });
        res.resume();
        const seen = () => [...text.matchAll(/^data:(.*)\n\n/gm)].map((m) => JSON.parse(m[1] as string).id as string);
        // About 2 s on a quiet machine; 12 s is before the next comment.
        while (seen().length < ids.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
        expect(seen()).toEqual(ids);
      } finally {
        res.destroy();
      }
    });
  }
});
