import { beforeAll, describe, expect, it } from 'vitest';
import { bearer, userToken } from '../foundation/util.js';
import { baseUrl, Client, manage, newApp, request, uid, type TestApp } from '../helpers/api.js';

/** The smaller gaps of the event-stream route and of held comments: each answered as the rest of the API answers it. */
let app: TestApp;
let client: Client;
beforeAll(async () => {
  app = await newApp();
  const token = (await manage('createtoken', { applicationid: app.appid, name: 'browser', scope: 'client' })).body.data.token as string;
  client = new Client(app.api.base, app.appid, token);
});

describe('the event-stream route', () => {
  it('answers another method with 405 and Allow, as every route does, and lets preflights through', async () => {
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
      const res = await request(method, `${baseUrl()}/api/v3/${app.appid}/sse?topic=room:r`, {}, { 'x-api-token': app.token });
      expect(res.status, method).toBe(405);
      expect(res.headers.get('allow'), method).toBe('GET, HEAD');
      expect(res.body.code, method).toBe(405);
    }
    const preflight = await fetch(`${baseUrl()}/api/v3/${app.appid}/sse`, { method: 'OPTIONS', headers: { origin: 'https://fans.example', 'access-control-request-method': 'GET' } });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-methods')).toContain('HEAD');
  });

  it('holds the request line and headers to 16 KB like every route: a 48 KB query opens no stream', async () => {
    const res = await fetch(`${baseUrl()}/api/v3/${app.appid}/sse?topic=context:a&token=${app.token}&pad=${'x'.repeat(48 * 1024)}`);
    expect(res.status).toBe(431);
    expect(((await res.json()) as { code: number }).code).toBe(431);
  });
});

describe('a comment held back by moderation', () => {
  it('is read by id only by its author, moderators and the server token; the client token alone and other users get 404', async () => {
    const conversationid = uid('held');
    expect((await app.api.post('comment/conversations', { conversationid, property: 'site', moderation: 'pre' })).status).toBe(200);
    const author = uid('author');
    const posted = await app.api.post(`comment/conversations/${conversationid}/comments`, { userid: author, body: 'waiting for a moderator' });
    expect(posted.status).toBe(200);
    const path = `comment/conversations/${conversationid}/comments/${posted.body.data.id}`;
    const as = async (claims: Record<string, unknown> | undefined) => (claims === undefined ? client : client.withHeaders(bearer(await userToken(app.jwtsecret, claims)))).get(path);

    expect((await as(undefined)).status).toBe(404);
    expect((await as({ userid: uid('someone') })).status).toBe(404);
    const own = await as({ userid: author });
    expect(own.status).toBe(200);
    expect(own.body.data.body).toBe('waiting for a moderator');
    expect((await as({ userid: uid('mod'), role: 'moderator' })).status).toBe(200);
    expect((await app.api.get(path)).status).toBe(200);
    // The lists agree: it is in none of them.
    const listed = await client.get(`comment/conversations/${conversationid}/comments`);
    expect(listed.body.data.comments).toEqual([]);

    // Once approved it is everyone's.
    const approved = await app.api.post(`comment/moderation/queues/comments/${posted.body.data.id}/applydecision`, { approve: true });
    expect(approved.status).toBe(200);
    expect((await as(undefined)).status).toBe(200);
  });
});
