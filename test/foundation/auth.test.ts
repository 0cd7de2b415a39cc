import { beforeAll, describe, expect, it } from 'vitest';
import { newApp, request, uid, type TestApp } from '../helpers/api.js';
import { bearer, expectEnvelope, userToken } from './util.js';

const NOT_AUTHORIZED = 'Request is not authorized with a token.';

let a: TestApp;
let b: TestApp;
beforeAll(async () => {
  a = await newApp();
  b = await newApp();
});

describe('API token matrix', () => {
  it('no token: 403 with the exact message', async () => {
    const res = await request('GET', a.api.url('user/users/'), undefined, {});
    expectEnvelope(res, 403);
    expect(res.body.message).toBe(NOT_AUTHORIZED);
  });

  it('wrong token: 403', async () => {
    const res = await request('GET', a.api.url('user/users/'), undefined, { 'x-api-token': `${a.token}x` });
    expectEnvelope(res, 403);
    expect(res.body.message).toBe(NOT_AUTHORIZED);
  });

  it("another application's token: 403, even on writes", async () => {
    const res = await request('GET', a.api.url('user/users/'), undefined, { 'x-api-token': b.token });
    expectEnvelope(res, 403);
    expect(res.body.message).toBe(NOT_AUTHORIZED);
    const userid = uid('u');
    const write = await request('POST', a.api.url(`user/users/${userid}`), { displayname: 'X' }, { 'x-api-token': b.token });
    expect(write.status).toBe(403);
    expect((await a.api.get(`user/users/${userid}`)).status).toBe(404);
  });

  it('the token on an unknown application id: 403', async () => {
    const res = await request('GET', a.api.url('user/users/').replace(a.appid, 'no-such-app'), undefined, { 'x-api-token': a.token });
    expect(res.status).toBe(403);
  });

  it('valid token: 200', async () => {
    const res = await a.api.get('user/users/');
    expectEnvelope(res, 200);
    expect(res.body.data.kind).toBe('list.users');
  });

  it('a user token alone, without the API token: 403', async () => {
    const jwt = await userToken(a.jwtsecret, { userid: 'someone', role: 'admin' });
    const res = await request('GET', a.api.url('user/users/'), undefined, bearer(jwt));
    expect(res.status).toBe(403);
    expect(res.body.message).toBe(NOT_AUTHORIZED);
  });
});

describe('user tokens (Authorization: Bearer)', () => {
  const me = uid('me');
  const other = uid('other');
  beforeAll(async () => {
    expect((await a.api.post(`user/users/${me}`, { displayname: 'Me' })).status).toBe(200);
    expect((await a.api.post(`user/users/${other}`, { displayname: 'Other' })).status).toBe(200);
  });

  it('a valid token lets the user update itself', async () => {
    const jwt = await userToken(a.jwtsecret, { userid: me, role: 'user' });
    const res = await a.api.withHeaders(bearer(jwt)).post(`user/users/${me}`, { displayname: 'Me Again' });
    expectEnvelope(res, 200);
    expect(res.body.data.displayname).toBe('Me Again');
  });

  it('a token whose aud lists this application is accepted', async () => {
    const jwt = await userToken(a.jwtsecret, { userid: me, role: 'user' }, { audience: [b.appid, a.appid] });
    const res = await a.api.withHeaders(bearer(jwt)).get(`user/users/${me}`);
    expectEnvelope(res, 200);
  });

  it('bad signature: 403', async () => {
    const jwt = await userToken(b.jwtsecret, { userid: me, role: 'user' });
    const res = await a.api.withHeaders(bearer(jwt)).get(`user/users/${me}`);
    expectEnvelope(res, 403);
  });

  it('tampered payload: 403', async () => {
    const jwt = await userToken(a.jwtsecret, { userid: me, role: 'user' });
    const [h, , s] = jwt.split('.');
    const forged = Buffer.from(JSON.stringify({ userid: me, role: 'admin' })).toString('base64url');
    const res = await a.api.withHeaders(bearer(`${h}.${forged}.${s}`)).post(`user/users/${other}/role`, { role: 'admin' });
    expectEnvelope(res, 403);
    expect((await a.api.get(`user/users/${other}`)).body.data.role).toBe('user');
  });

  it('wrong aud: 403', async () => {
    const jwt = await userToken(a.jwtsecret, { userid: me, role: 'user' }, { audience: [b.appid] });
    const res = await a.api.withHeaders(bearer(jwt)).get(`user/users/${me}`);
    expectEnvelope(res, 403);
  });

  it('expired: 403', async () => {
    const jwt = await userToken(a.jwtsecret, { userid: me, role: 'user' }, { expiresAt: Math.floor(Date.now() / 1000) - 60 });
    const res = await a.api.withHeaders(bearer(jwt)).get(`user/users/${me}`);
    expectEnvelope(res, 403);
  });

  it('an unsigned token (alg none): 403', async () => {
    const part = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
    const unsigned = `${part({ alg: 'none', typ: 'JWT' })}.${part({ userid: me, role: 'admin' })}.`;
    const res = await a.api.withHeaders(bearer(unsigned)).post(`user/users/${other}/role`, { role: 'admin' });
    expectEnvelope(res, 403);
  });

  it('garbage and non-Bearer Authorization headers: 403', async () => {
    expect((await a.api.withHeaders({ authorization: 'Bearer not.a.jwt' }).get(`user/users/${me}`)).status).toBe(403);
    expect((await a.api.withHeaders({ authorization: 'Basic dXNlcjpwYXNz' }).get(`user/users/${me}`)).status).toBe(403);
  });

  it('a token without a userid claim: 403', async () => {
    const jwt = await userToken(a.jwtsecret, { role: 'admin' });
    expect((await a.api.withHeaders(bearer(jwt)).get(`user/users/${me}`)).status).toBe(403);
  });

  describe('limits the caller to that user', () => {
    let asUser: TestApp['api'];
    beforeAll(async () => {
      asUser = a.api.withHeaders(bearer(await userToken(a.jwtsecret, { userid: me, role: 'user' })));
    });

    it('cannot update another user', async () => {
      const res = await asUser.post(`user/users/${other}`, { displayname: 'Hijacked' });
      expectEnvelope(res, 403);
      expect((await a.api.get(`user/users/${other}`)).body.data.displayname).toBe('Other');
    });

    it('cannot set roles, neither through the role endpoint nor its own profile', async () => {
      expectEnvelope(await asUser.post(`user/users/${other}/role`, { role: 'moderator' }), 403);
      expectEnvelope(await asUser.post(`user/users/${me}/role`, { role: 'admin' }), 403);
      expectEnvelope(await asUser.post(`user/users/${me}`, { role: 'admin' }), 403);
      expect((await a.api.get(`user/users/${me}`)).body.data.role).toBe('user');
    });

    it('cannot delete, ban, shadow ban, mute or purge another user', async () => {
      expect((await asUser.delete(`user/users/${other}`)).status).toBe(403);
      for (const effect of ['ban', 'shadowban', 'mute']) expect((await asUser.post(`user/users/${other}/${effect}`, { applyeffect: true })).status).toBe(403);
      expect((await asUser.post(`user/users/${other}/globalpurge`, { byuserid: me })).status).toBe(403);
      const after = (await a.api.get(`user/users/${other}`)).body.data;
      expect(after.banned).toBe(false);
      expect(after.shadowbanned).toBe(false);
      expect(after.muted).toBe(false);
    });

    it('cannot report in the name of another user', async () => {
      const reporting = await newApp({ userreportslimit: 1 });
      const target = uid('t');
      await reporting.api.post(`user/users/${target}`, { displayname: 'T' });
      const asMe = reporting.api.withHeaders(bearer(await userToken(reporting.jwtsecret, { userid: me, role: 'user' })));
      expectEnvelope(await asMe.post(`user/users/${target}/report`, { userid: other, reporttype: 'spam' }), 403);
      expectEnvelope(await asMe.post(`user/users/${target}/report`, { userid: me, reporttype: 'spam' }), 200);
    });

    it('cannot read the reported-users queue', async () => {
      expect((await asUser.get('user/moderation/queues/reportedusers')).status).toBe(403);
    });
  });

  it('a moderator token may ban but not set roles; an admin token may set roles', async () => {
    const mod = a.api.withHeaders(bearer(await userToken(a.jwtsecret, { userid: uid('mod'), role: 'moderator' })));
    const ban = await mod.post(`user/users/${other}/ban`, { applyeffect: true });
    expectEnvelope(ban, 200);
    expect(ban.body.data.banned).toBe(true);
    expect((await mod.post(`user/users/${other}/ban`, { applyeffect: false })).body.data.banned).toBe(false);
    expect((await mod.post(`user/users/${other}/role`, { role: 'moderator' })).status).toBe(403);
    const admin = a.api.withHeaders(bearer(await userToken(a.jwtsecret, { userid: uid('adm'), role: 'admin' })));
    const set = await admin.post(`user/users/${other}/role`, { role: 'moderator' });
    expectEnvelope(set, 200);
    expect(set.body.data.role).toBe('moderator');
  });
});
