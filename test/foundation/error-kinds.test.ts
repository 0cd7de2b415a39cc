import { beforeAll, describe, expect, it } from 'vitest';
import { baseUrl, newApp, request, uid, type TestApp } from '../helpers/api.js';
import { makeRoom } from '../chat/helpers.js';
import { connect, open, wsUrl } from '../realtime/ws-client.js';
import { bearer, expectEnvelope, userToken } from './util.js';

// Each kind of error (docs/errors.md) met through a real request: its HTTP status (api-v3.md,
// Errors) and, where a WebSocket frame can meet the same refusal, its `error` frame code
// (docs/realtime.md). Rate limits (429 / rate_limited) are covered in test/limits, an
// unreachable database (503) in test/hardening/database-outage.test.ts.

let app: TestApp;
beforeAll(async () => {
  app = await newApp();
});

describe('invalid: 400 over HTTP, bad_request over WebSocket', () => {
  it('names the bad field of a body that fails its schema', async () => {
    const res = await app.api.post('chat/rooms', { name: uid('room'), enableenterandexit: 'sometimes' });
    expectEnvelope(res, 400);
    expect(Object.keys(res.body.errors)).toEqual(['enableenterandexit']);
  });

  it('names the field a service refuses', async () => {
    const res = await app.api.get('chat/rooms/batch/details');
    expectEnvelope(res, 400);
    expect(res.body.message).toBe('You must specify at least one roomid or customid');
    expect(Object.keys(res.body.errors)).toEqual(['roomid']);
  });

  it('refuses the same malformed cursor on the updates feed and on a resuming subscription', async () => {
    const room = await makeRoom(app.api);
    const res = await app.api.get(`chat/rooms/${room.id}/updates?cursor=not-a-cursor`);
    expectEnvelope(res, 400);
    expect(Object.keys(res.body.errors)).toEqual(['cursor']);
    const socket = await connect(baseUrl(), app.appid, app.token);
    expect(await socket.subscribe(`room:${room.id}`, 'not-a-cursor')).toEqual({ type: 'error', code: 'bad_request', message: res.body.message, topic: `room:${room.id}` });
    socket.close();
  });
});

describe('unauthorized: 403 over HTTP, close 4003 over WebSocket', () => {
  it('refuses a wrong API token and a user token that does not verify', async () => {
    const wrongToken = await request('GET', app.api.url('chat/rooms'), undefined, { 'x-api-token': 'not-a-token' });
    expectEnvelope(wrongToken, 403);
    expect(wrongToken.body.message).toBe('Request is not authorized with a token.');
    const badJwt = await app.api.withHeaders(bearer(await userToken('another-secret', { userid: uid('u') }))).get('chat/rooms');
    expectEnvelope(badJwt, 403);
    const socket = await open(wsUrl(baseUrl(), app.appid), { 'x-api-token': 'not-a-token' });
    expect((await socket.closed).code).toBe(4003);
  });
});

describe('forbidden: 403 over HTTP and WebSocket', () => {
  it('refuses a user token naming another user as owner, naming the field, storing nothing', async () => {
    const me = uid('u');
    const customid = uid('c');
    const asMe = app.api.withHeaders(bearer(await userToken(app.jwtsecret, { userid: me })));
    const res = await asMe.post('chat/rooms', { name: uid('room'), customid, ownerid: uid('someone') });
    expectEnvelope(res, 403);
    expect(res.body.errors).toEqual({ ownerid: 'must be your own userid' });
    expectEnvelope(await app.api.get(`chat/roomsbycustomid/${customid}`), 404);
  });

  it("refuses a user token subscribing to another user's topic", async () => {
    const socket = await connect(baseUrl(), app.appid, app.token, await userToken(app.jwtsecret, { userid: uid('u') }));
    expect(await socket.subscribe(`user:${uid('other')}`)).toMatchObject({ type: 'error', code: 'forbidden' });
    socket.close();
  });
});

describe('not_found: 404 over HTTP, not_found over WebSocket', () => {
  it('answers the same missing room both ways with the same message', async () => {
    const roomid = uid('missing');
    const res = await app.api.get(`chat/rooms/${roomid}`);
    expectEnvelope(res, 404);
    const socket = await connect(baseUrl(), app.appid, app.token);
    expect(await socket.subscribe(`room:${roomid}`)).toEqual({ type: 'error', code: 'not_found', message: res.body.message, topic: `room:${roomid}` });
    socket.close();
  });
});

describe('blocked_by_rule: 405 over HTTP', () => {
  it('refuses a handle with characters the rules do not allow, storing nothing', async () => {
    const userid = uid('u');
    const res = await app.api.post(`user/users/${userid}`, { displayname: 'Ann', handle: 'not allowed!' });
    expectEnvelope(res, 405);
    expectEnvelope(await app.api.get(`user/users/${userid}`), 404);
  });
});

describe('conflict: 409 over HTTP', () => {
  it('refuses a customid already in use, naming the field', async () => {
    const customid = uid('c');
    await makeRoom(app.api, { customid });
    const res = await app.api.post('chat/rooms', { name: uid('room'), customid });
    expectEnvelope(res, 409);
    expect(res.body.errors).toEqual({ customid: 'is already in use' });
  });
});

describe('precondition_failed: 412 over HTTP', () => {
  it('refuses a user report while reporting is off for the application', async () => {
    const off = await newApp({ userreportslimit: 0 });
    const reported = uid('u');
    expectEnvelope(await off.api.post(`user/users/${reported}`, { displayname: 'Ann' }), 200);
    const res = await off.api.post(`user/users/${reported}/report`, { userid: uid('reporter'), reporttype: 'abuse' });
    expectEnvelope(res, 412);
  });
});
