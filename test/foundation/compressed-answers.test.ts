import { gunzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { newApp, type TestApp } from '../helpers/api.js';
import { rawGet, rawRequest, type RawAnswer } from '../helpers/raw-get.js';
import { newConversation, postComment } from '../comments/helpers.js';

/** A GET of the app's API with exactly these headers besides the token. */
const apiGet = (app: TestApp, path: string, headers: Record<string, string> = {}) => rawGet(`/api/v3/${app.appid}/${path}`, { 'x-api-token': app.token, ...headers });

const json = (raw: RawAnswer) => JSON.parse((raw.headers['content-encoding'] === 'gzip' ? gunzipSync(raw.body) : raw.body).toString('utf8'));
const varies = (raw: RawAnswer) => String(raw.headers['vary'] ?? '').toLowerCase();

/** Answers a crowd shares (a conversation's first page, the rooms list, a room's updates) go gzipped to clients that take it, as the SDKs' HTTP stacks do. */
describe('compressed answers', () => {
  let app: TestApp;
  let conversation: string;
  let room: string;
  let joinedAt: string;
  beforeAll(async () => {
    app = await newApp();
    conversation = (await newConversation(app.api)).conversationid;
    for (let i = 0; i < 20; i++) await postComment(app.api, conversation, { userid: `fan${i % 4}`, displayname: `Fan ${i % 4}`, body: `what a match, part ${i}` });
    for (let i = 0; i < 7; i++) expect((await app.api.post('chat/rooms', { name: `room ${i}`, description: 'a room for the match, with a long enough description' })).status).toBe(200);
    room = (await app.api.post('chat/rooms', { name: 'stadium', enableenterandexit: false })).body.data.id;
    joinedAt = (await app.api.post(`chat/rooms/${room}/join`, { userid: 'fan0', displayname: 'Fan 0' })).body.data.eventscursor.cursor;
    for (let i = 0; i < 10; i++) expect((await app.api.post(`chat/rooms/${room}/command`, { userid: 'fan0', command: `goal ${i}!` })).status).toBe(200);
  });

  it("a first comment page, a rooms list page and a room's updates: gzipped when asked, the same JSON as the plain answer", async () => {
    for (const path of [`comment/conversations/${conversation}/comments`, 'chat/rooms?limit=50', `chat/rooms/${room}/updates`, `chat/rooms/${room}/updates?cursor=${joinedAt}`]) {
      const plain = await apiGet(app, path);
      expect(plain.status).toBe(200);
      expect(plain.headers['content-encoding']).toBeUndefined();
      expect(plain.body.length).toBeGreaterThan(1400);
      const packed = await apiGet(app, path, { 'accept-encoding': 'gzip, deflate, br' });
      expect(packed.status).toBe(200);
      expect(packed.headers['content-encoding']).toBe('gzip');
      expect(packed.body.length).toBeLessThan(plain.body.length / 3);
      expect(json(packed)).toEqual(json(plain));
      // A cache between the client and the server must keep the two apart.
      expect(varies(packed)).toContain('accept-encoding');
      expect(varies(plain)).toContain('accept-encoding');
    }
  });

  it('a change is in the next gzipped page', async () => {
    const path = `comment/conversations/${conversation}/comments?sort=newest`;
    const before = json(await apiGet(app, path, { 'accept-encoding': 'gzip' }));
    const added = await postComment(app.api, conversation, { userid: 'late', displayname: 'Late', body: 'just in' });
    const after = json(await apiGet(app, path, { 'accept-encoding': 'gzip' }));
    expect(before.data.comments.map((c: { id: string }) => c.id)).not.toContain(added.id);
    expect(after.data.comments[0].id).toBe(added.id);
    const updates = `chat/rooms/${room}/updates?cursor=${joinedAt}`;
    const earlier = json(await apiGet(app, updates, { 'accept-encoding': 'gzip' }));
    expect((await app.api.post(`chat/rooms/${room}/command`, { userid: 'fan0', command: 'late goal' })).status).toBe(200);
    const later = json(await apiGet(app, updates, { 'accept-encoding': 'gzip' }));
    expect(later.data.events).toHaveLength(earlier.data.events.length + 1);
    expect(later.data.events.at(-1).body).toBe('late goal');
    expect(later.data.cursor).not.toBe(earlier.data.cursor);
  });

  it('answers made for one request (a later comment page, the users list, a search) gzipped too; a write answer stays plain', async () => {
    const gzip = { 'x-api-token': app.token, 'accept-encoding': 'gzip' };
    const first = json(await apiGet(app, `comment/conversations/${conversation}/comments?limit=5`));
    const reads = [
      () => apiGet(app, `comment/conversations/${conversation}/comments?limit=10&cursor=${first.data.cursor}`, { 'accept-encoding': 'gzip' }),
      () => apiGet(app, 'user/users/?limit=50', { 'accept-encoding': 'gzip' }),
      () => rawRequest('POST', `/api/v3/${app.appid}/user/search`, gzip, { name: 'fan' }),
    ];
    for (const read of reads) {
      const packed = await read();
      expect(packed.status).toBe(200);
      expect(packed.headers['content-encoding']).toBe('gzip');
      expect(gunzipSync(packed.body).length).toBeGreaterThan(1400);
    }
    const said = await rawRequest('POST', `/api/v3/${app.appid}/chat/rooms/${room}/command`, gzip, { userid: 'fan0', command: 'a write answer' });
    expect(said.status).toBe(200);
    expect(said.body.length).toBeGreaterThan(1400);
    expect(said.headers['content-encoding']).toBeUndefined();
  });

  it('plain when gzip is refused (q=0) or not offered, and for small answers', async () => {
    const path = 'chat/rooms?limit=50';
    for (const refused of ['gzip;q=0', 'identity', 'br', 'x-gzip-not']) {
      const raw = await apiGet(app, path, { 'accept-encoding': refused });
      expect(raw.headers['content-encoding'], refused).toBeUndefined();
      expect(json(raw).data.rooms.length).toBe(8);
    }
    const small = await apiGet(app, 'chat/rooms?limit=1', { 'accept-encoding': 'gzip' });
    expect(small.body.length).toBeLessThan(1400);
    expect(small.headers['content-encoding']).toBeUndefined();
  });
});
