import { beforeAll, describe, expect, it } from 'vitest';
import { baseUrl, newApp, request, type TestApp } from '../helpers/api.js';
import { userToken } from '../foundation/util.js';
import { connect, open, wsUrl } from './ws-client.js';

describe('websocket authentication', () => {
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    [a, b] = await Promise.all([newApp(), newApp()]);
  });

  it('accepts the API token as header, as query parameter, or as a first auth frame', async () => {
    // Plain frames asked for (a compact ready frame adds what compact.test.ts checks).
    const byHeader = await connect(baseUrl(), a.appid, a.token, undefined, false);
    expect(byHeader.frames[0]).toEqual({ type: 'ready', appid: a.appid, userid: null, role: null });
    byHeader.close();

    const byQuery = await open(wsUrl(baseUrl(), a.appid, `?token=${encodeURIComponent(a.token)}`));
    expect((await byQuery.next((f) => f.type === 'ready')).appid).toBe(a.appid);
    byQuery.close();

    const jwt = await userToken(a.jwtsecret, { userid: 'u1', role: 'moderator' });
    const byFrame = await open(wsUrl(baseUrl(), a.appid, '', false));
    byFrame.send({ type: 'auth', token: a.token, jwt });
    expect(await byFrame.next((f) => f.type === 'ready')).toEqual({ type: 'ready', appid: a.appid, userid: 'u1', role: 'moderator' });
    byFrame.close();
  });

  it('takes the user token from the Authorization header or the jwt query parameter', async () => {
    const jwt = await userToken(a.jwtsecret, { userid: 'u2' });
    const header = await connect(baseUrl(), a.appid, a.token, jwt);
    expect(header.frames[0]?.userid).toBe('u2');
    header.close();
    const query = await open(wsUrl(baseUrl(), a.appid, `?token=${encodeURIComponent(a.token)}&jwt=${jwt}`));
    expect((await query.next((f) => f.type === 'ready')).role).toBe('user');
    query.close();
  });

  it("closes with 4003 for a wrong token, another app's token, the path of an application that does not exist, or a bad user token", async () => {
    const wrong = await open(wsUrl(baseUrl(), a.appid), { 'x-api-token': 'nope' });
    expect((await wrong.closed).code).toBe(4003);
    const crossApp = await open(wsUrl(baseUrl(), a.appid), { 'x-api-token': b.token });
    expect((await crossApp.closed).code).toBe(4003);
    const noSuchApp = await open(wsUrl(baseUrl(), 'no-such-app'), { 'x-api-token': a.token });
    expect((await noSuchApp.closed).code).toBe(4003);
    const badJwt = await userToken(b.jwtsecret, { userid: 'u1' });
    const viaFrame = await open(wsUrl(baseUrl(), a.appid));
    viaFrame.send({ type: 'auth', token: a.token, jwt: badJwt });
    expect((await viaFrame.closed).code).toBe(4003);
    expect(viaFrame.frames).toEqual([]);
  });

  it('closes a socket without a token on the path of an application that does not exist at once (4003), not after the 10 s authentication timeout', async () => {
    const started = Date.now();
    const noSuchApp = await open(wsUrl(baseUrl(), 'no-such-app'));
    expect((await noSuchApp.closed).code).toBe(4003);
    expect(Date.now() - started).toBeLessThan(2_000);
    // An application that exists still waits for the auth frame.
    const existing = await open(wsUrl(baseUrl(), a.appid));
    await new Promise((r) => setTimeout(r, 300));
    existing.send({ type: 'auth', token: a.token });
    expect((await existing.next((f) => f.type === 'ready')).appid).toBe(a.appid);
    existing.close();
  });

  it('closes with 4001 when a frame other than auth comes first', async () => {
    const client = await open(wsUrl(baseUrl(), a.appid));
    client.send({ type: 'subscribe', topic: 'context:x' });
    expect((await client.closed).code).toBe(4001);
    const garbage = await open(wsUrl(baseUrl(), a.appid));
    garbage.send('not json');
    expect((await garbage.closed).code).toBe(4001);
  });

  it('leaves plain HTTP on the ws path to the JSON API (404 envelope)', async () => {
    const res = await request('GET', `${baseUrl()}/api/v3/${a.appid}/ws`, undefined, { 'x-api-token': a.token });
    expect(res.status).toBe(404);
    expect(res.body.kind).toBe('api.result');
  });
});
