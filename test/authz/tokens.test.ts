import { beforeAll, describe, expect, it } from 'vitest';
import { baseUrl, Client, manage, newApp, request, type TestApp } from '../helpers/api.js';
import { MANAGE_TOKEN } from '../helpers/spawn.js';
import { expectEnvelope } from '../foundation/util.js';

const manageGet = (path: string) => request('GET', `${baseUrl()}/api/v3/manage/${path}`, undefined, { 'x-manage-token': MANAGE_TOKEN });
const manageDelete = (path: string) => request('DELETE', `${baseUrl()}/api/v3/manage/${path}`, undefined, { 'x-manage-token': MANAGE_TOKEN });

describe('API tokens: scope, listing and revocation (manage API)', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await newApp();
  });

  it('createtoken returns the id and the scope, server by default', async () => {
    const server = await manage('createtoken', { applicationid: app.appid, name: 'backend' });
    expectEnvelope(server, 200);
    expect(server.body.data).toMatchObject({ applicationid: app.appid, name: 'backend', scope: 'server' });
    expect(server.body.data.id).toEqual(expect.any(String));
    expect(server.body.data.token).toEqual(expect.any(String));
    const client = await manage('createtoken', { applicationid: app.appid, name: 'browser', scope: 'client' });
    expect(client.body.data).toMatchObject({ name: 'browser', scope: 'client' });
    expect(client.body.data.id).not.toBe(server.body.data.id);
  });

  it('refuses an unknown scope with 400 naming scope', async () => {
    const res = await manage('createtoken', { applicationid: app.appid, scope: 'root' });
    expectEnvelope(res, 400);
    expect(Object.keys(res.body.errors)).toEqual(['scope']);
  });

  it("lists an app's tokens without their secrets, only with the manage token", async () => {
    const own = await newApp();
    const made = await manage('createtoken', { applicationid: own.appid, name: 'listed', scope: 'client' });
    const res = await manageGet(`tokens?applicationid=${own.appid}`);
    expectEnvelope(res, 200);
    const tokens = res.body.data.tokens as Record<string, unknown>[];
    expect(tokens.map((t) => t['name']).sort()).toEqual(['listed', 'test']);
    expect(tokens.find((t) => t['id'] === made.body.data.id)).toMatchObject({ scope: 'client', name: 'listed', added: expect.any(String), created: expect.any(String) });
    expect(JSON.stringify(res.body)).not.toContain(made.body.data.token);
    expect(JSON.stringify(res.body)).not.toContain(own.token);
    expect(tokens.every((t) => !('token' in t))).toBe(true);
    expect((await request('GET', `${baseUrl()}/api/v3/manage/tokens?applicationid=${own.appid}`, undefined, { 'x-manage-token': 'wrong-manage-token-000000' })).status).toBe(403);
    expectEnvelope(await manageGet('tokens'), 400);
    expectEnvelope(await manageGet('tokens?applicationid=nosuchapp'), 404);
  });

  it('revokes a token: refused at once, gone from the list; other tokens keep working', async () => {
    const own = await newApp();
    const made = await manage('createtoken', { applicationid: own.appid, name: 'doomed' });
    const doomed = new Client(baseUrl(), own.appid, made.body.data.token as string);
    expectEnvelope(await doomed.get('chat/rooms'), 200);
    const revoked = await manageDelete(`tokens/${made.body.data.id}`);
    expectEnvelope(revoked, 200);
    expect(revoked.body.data.token).toMatchObject({ id: made.body.data.id, name: 'doomed' });
    expectEnvelope(await doomed.get('chat/rooms'), 403);
    expectEnvelope(await own.api.get('chat/rooms'), 200);
    const listed = await manageGet(`tokens?applicationid=${own.appid}`);
    expect(listed.body.data.tokens.map((t: { name: string }) => t.name)).toEqual(['test']);
    expectEnvelope(await manageDelete(`tokens/${made.body.data.id}`), 404);
    expect((await request('DELETE', `${baseUrl()}/api/v3/manage/tokens/${made.body.data.id}`)).status).toBe(403);
  });
});
