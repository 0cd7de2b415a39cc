import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { baseUrl, newApp, request, uid, type Response, type TestApp } from '../helpers/api.js';
import { makeRoom } from '../chat/helpers.js';
import { connect, open, wsUrl } from '../realtime/ws-client.js';
import { bearer, expectEnvelope, userToken } from './util.js';

// Each kind of error met through real requests, answered as docs/errors.md says: its HTTP status
// and, where a WebSocket frame can meet the same refusal, its `error` frame code. Rate limits
// (429, rate_limited) are met in test/limits, /readyz with its database out of reach (503)
// in test/hardening/database-outage.test.ts, a write while the disk is full (507,
// insufficient_storage) in test/operability/full-disk.slow.test.ts.

const ERRORS_MD = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');

/** docs/errors.md's table: kind → HTTP status and WebSocket code. */
const documented = new Map(
  [...ERRORS_MD.matchAll(/^\| `(\w+)` \| (\d{3}) \| `(\w+)` \|/gm)].map((m): [string, { status: number; code: string }] => [m[1] as string, { status: Number(m[2]), code: m[3] as string }]),
);

function documentedKind(kind: string): { status: number; code: string } {
  const row = documented.get(kind);
  if (row === undefined) throw new Error(`docs/errors.md has no row for ${kind}`);
  return row;
}

/** The envelope with the status docs/errors.md gives the kind. */
const expectKind = (res: Response, kind: string) => expectEnvelope(res, documentedKind(kind).status);

let app: TestApp;
beforeAll(async () => {
  app = await newApp();
});

describe('docs/errors.md', () => {
  it("gives every kind the status of the API's Errors table (api-v3.md), of the README's rate limits and of docs/storage.md", () => {
    expect(Object.fromEntries([...documented].map(([kind, row]) => [kind, row.status]))).toEqual({
      invalid: 400,
      unauthorized: 403,
      forbidden: 403,
      not_found: 404,
      blocked_by_rule: 405,
      conflict: 409,
      precondition_failed: 412,
      rate_limited: 429,
      unavailable: 503,
      insufficient_storage: 507,
    });
  });

  it('gives every kind a code that docs/realtime.md lists', () => {
    const realtime = readFileSync(new URL('../../docs/realtime.md', import.meta.url), 'utf8');
    const listed = realtime.slice(realtime.indexOf('Error codes:'), realtime.indexOf('\n\n', realtime.indexOf('Error codes:')));
    for (const [kind, row] of documented) expect(listed, kind).toContain(`\`${row.code}\``);
  });
});

describe('invalid', () => {
  it('names the bad field of a body that fails its schema', async () => {
    const res = await app.api.post('chat/rooms', { name: uid('room'), enableenterandexit: 'sometimes' });
    expectKind(res, 'invalid');
    expect(Object.keys(res.body.errors)).toEqual(['enableenterandexit']);
  });

  it('names the field a service refuses', async () => {
    const res = await app.api.get('chat/rooms/batch/details');
    expectKind(res, 'invalid');
    expect(res.body.message).toBe('You must specify at least one roomid or customid');
    expect(Object.keys(res.body.errors)).toEqual(['roomid']);
  });

  it('refuses the same malformed cursor on the updates feed and on a resuming subscription', async () => {
    const room = await makeRoom(app.api);
    const res = await app.api.get(`chat/rooms/${room.id}/updates?cursor=not-a-cursor`);
    expectKind(res, 'invalid');
    expect(Object.keys(res.body.errors)).toEqual(['cursor']);
    const socket = await connect(baseUrl(), app.appid, app.token);
    expect(await socket.subscribe(`room:${room.id}`, 'not-a-cursor')).toEqual({ type: 'error', code: documentedKind('invalid').code, message: res.body.message, topic: `room:${room.id}` });
    socket.close();
  });
});

describe('unauthorized', () => {
  it('refuses a wrong API token and a user token that does not verify', async () => {
    const wrongToken = await request('GET', app.api.url('chat/rooms'), undefined, { 'x-api-token': 'not-a-token' });
    expectKind(wrongToken, 'unauthorized');
    expect(wrongToken.body.message).toBe('Request is not authorized with a token.');
    const badJwt = await app.api.withHeaders(bearer(await userToken('another-secret', { userid: uid('u') }))).get('chat/rooms');
    expectKind(badJwt, 'unauthorized');
    const socket = await open(wsUrl(baseUrl(), app.appid), { 'x-api-token': 'not-a-token' });
    expect((await socket.closed).code).toBe(4003);
  });
});

describe('forbidden', () => {
  it('refuses a user token naming another user as owner, naming the field, storing nothing', async () => {
    const me = uid('u');
    const customid = uid('c');
    const asMe = app.api.withHeaders(bearer(await userToken(app.jwtsecret, { userid: me })));
    const res = await asMe.post('chat/rooms', { name: uid('room'), customid, ownerid: uid('someone') });
    expectKind(res, 'forbidden');
    expect(res.body.errors).toEqual({ ownerid: 'must be your own userid' });
    expectEnvelope(await app.api.get(`chat/roomsbycustomid/${customid}`), 404);
  });

  it("refuses a user token subscribing to another user's topic", async () => {
    const socket = await connect(baseUrl(), app.appid, app.token, await userToken(app.jwtsecret, { userid: uid('u') }));
    expect(await socket.subscribe(`user:${uid('other')}`)).toMatchObject({ type: 'error', code: documentedKind('forbidden').code });
    socket.close();
  });
});

describe('not_found', () => {
  it('answers the same missing room both ways with the same message', async () => {
    const roomid = uid('missing');
    const res = await app.api.get(`chat/rooms/${roomid}`);
    expectKind(res, 'not_found');
    const socket = await connect(baseUrl(), app.appid, app.token);
    expect(await socket.subscribe(`room:${roomid}`)).toEqual({ type: 'error', code: documentedKind('not_found').code, message: res.body.message, topic: `room:${roomid}` });
    socket.close();
  });
});

describe('blocked_by_rule', () => {
  it('refuses a handle with characters the rules do not allow, storing nothing', async () => {
    const userid = uid('u');
    const res = await app.api.post(`user/users/${userid}`, { displayname: 'Ann', handle: 'not allowed!' });
    expectKind(res, 'blocked_by_rule');
    expectEnvelope(await app.api.get(`user/users/${userid}`), 404);
  });
});

describe('conflict', () => {
  it('refuses a customid already in use, naming the field', async () => {
    const customid = uid('c');
    await makeRoom(app.api, { customid });
    const res = await app.api.post('chat/rooms', { name: uid('room'), customid });
    expectKind(res, 'conflict');
    expect(res.body.errors).toEqual({ customid: 'is already in use' });
  });
});

describe('precondition_failed', () => {
  it('refuses a user report while reporting is off for the application', async () => {
    const off = await newApp({ userreportslimit: 0 });
    const reported = uid('u');
    expectEnvelope(await off.api.post(`user/users/${reported}`, { displayname: 'Ann' }), 200);
    const res = await off.api.post(`user/users/${reported}/report`, { userid: uid('reporter'), reporttype: 'abuse' });
    expectKind(res, 'precondition_failed');
  });
});
