import { beforeAll, describe, expect, it } from 'vitest';
import { newApp, uid, type TestApp } from '../helpers/api.js';
import { expectEnvelope } from './util.js';

let app: TestApp;
beforeAll(async () => {
  app = await newApp({ userreportslimit: 5 });
});

describe('field names are case-insensitive', () => {
  it('body keys in any case: displayName, DISPLAYNAME, PictureUrl', async () => {
    const a = uid('u');
    const res = await app.api.post(`user/users/${a}`, { DisplayName: 'Camel Case', Handle: `h${a}`, PictureURL: 'https://p.test/a.png' });
    expectEnvelope(res, 200);
    expect(res.body.data).toMatchObject({ displayname: 'Camel Case', handle: `h${a}`, pictureurl: 'https://p.test/a.png' });
    const b = uid('u');
    const upper = await app.api.post(`user/users/${b}`, { DISPLAYNAME: 'Upper' });
    expectEnvelope(upper, 200);
    expect(upper.body.data.displayname).toBe('Upper');
  });

  it('userId, userid and USERID are the same field', async () => {
    const target = uid('target');
    await app.api.post(`user/users/${target}`, { displayname: 'Findable' });
    for (const key of ['userId', 'userid', 'USERID']) {
      const res = await app.api.post('user/search', { [key]: target });
      expectEnvelope(res, 200);
      expect(res.body.data.users.map((u: { userid: string }) => u.userid)).toEqual([target]);
    }
    const reporter = uid('rep');
    const report = await app.api.post(`user/users/${target}/report`, { UserId: reporter, ReportType: 'spam' });
    expectEnvelope(report, 200);
  });

  it('query parameter names too: Limit and LIMIT', async () => {
    for (let i = 0; i < 3; i++) await app.api.post(`user/users/${uid('q')}`, { displayname: 'Q' });
    for (const key of ['limit', 'Limit', 'LIMIT']) {
      const res = await app.api.get(`user/users/?${key}=2`);
      expectEnvelope(res, 200);
      expect(res.body.data.itemcount).toBe(2);
      expect(res.body.data.users).toHaveLength(2);
      const next = await app.api.get(`user/users/?Limit=2&Cursor=${encodeURIComponent(res.body.data.cursor)}`);
      expect(next.status).toBe(200);
      expect(next.body.data.users[0].userid > res.body.data.users[1].userid).toBe(true);
    }
  });

  it('a "__proto__" key sets no fields (no inherited values after folding)', async () => {
    const u = uid('u');
    const res = await app.api.post(`user/users/${u}`, `{"displayname":"Proto","__proto__":{"role":"admin","handle":"sneaky"}}`);
    expectEnvelope(res, 200);
    expect(res.body.data.role).toBe('user');
    expect(res.body.data.handle).not.toBe('sneaky');
    const q = await app.api.get('user/users/?__proto__=1&__proto__=2&limit=1');
    expectEnvelope(q, 200);
    expect(q.body.data.itemcount).toBe(1);
  });

  it('responses use all-lowercase names', async () => {
    const res = await app.api.post(`user/users/${uid('u')}`, { displayName: 'Lower' });
    const keys = Object.keys(res.body.data);
    expect(keys.length).toBeGreaterThan(3);
    for (const key of keys) expect(key).toBe(key.toLowerCase());
  });
});

describe('booleans and numbers as strings', () => {
  it('applyeffect "true"/"false" and expireseconds "30"', async () => {
    const u = uid('u');
    await app.api.post(`user/users/${u}`, { displayname: 'S' });
    const on = await app.api.post(`user/users/${u}/ban`, { applyeffect: 'true', expireseconds: '30' });
    expectEnvelope(on, 200);
    expect(on.body.data.banned).toBe(true);
    const expires = Date.parse(on.body.data.banexpires);
    expect(expires - Date.now()).toBeGreaterThan(20_000);
    expect(expires - Date.now()).toBeLessThan(40_000);
    const off = await app.api.post(`user/users/${u}/ban`, { applyeffect: 'false' });
    expectEnvelope(off, 200);
    expect(off.body.data.banned).toBe(false);
  });

  it('limit "2" in a body', async () => {
    const name = uid('Nm');
    for (let i = 0; i < 3; i++) await app.api.post(`user/users/${uid('n')}`, { displayname: `${name} ${i}` });
    const res = await app.api.post('user/search', { name, limit: '2' });
    expectEnvelope(res, 200);
    expect(res.body.data.itemcount).toBe(2);
    expect(res.body.data.more).toBe(true);
  });

  it('refuses strings that are not booleans or numbers, naming the field', async () => {
    const u = uid('u');
    await app.api.post(`user/users/${u}`, { displayname: 'S' });
    const bool = await app.api.post(`user/users/${u}/mute`, { applyeffect: 'perhaps' });
    expectEnvelope(bool, 400);
    expect(Object.keys(bool.body.errors)).toEqual(['applyeffect']);
    const num = await app.api.post(`user/users/${u}/mute`, { applyeffect: true, expireseconds: 'soon' });
    expectEnvelope(num, 400);
    expect(Object.keys(num.body.errors)).toEqual(['expireseconds']);
    const frac = await app.api.post(`user/users/${u}/mute`, { applyeffect: true, expireseconds: '1.5' });
    expect(frac.status).toBe(400);
    expect(frac.body.errors).toHaveProperty('expireseconds');
    expect((await app.api.get(`user/users/${u}`)).body.data.muted).toBe(false);
  });
});

describe('validation errors name the field', () => {
  it('a missing required field', async () => {
    const u = uid('u');
    await app.api.post(`user/users/${u}`, { displayname: 'V' });
    const role = await app.api.post(`user/users/${u}/role`, {});
    expectEnvelope(role, 400);
    expect(role.body.errors).toHaveProperty('role');
    const purge = await app.api.post(`user/users/${u}/globalpurge`, {});
    expectEnvelope(purge, 400);
    expect(purge.body.errors).toHaveProperty('byuserid');
    const report = await app.api.post(`user/users/${u}/report`, { userid: uid('r') });
    expectEnvelope(report, 400);
    expect(report.body.errors).toHaveProperty('reporttype');
  });

  it('a wrong type', async () => {
    const res = await app.api.post(`user/users/${uid('u')}`, { displayname: { first: 'A' } });
    expectEnvelope(res, 400);
    expect(res.body.errors).toHaveProperty('displayname');
    expect(res.body.message).toContain('displayname');
  });

  it('a bad query parameter', async () => {
    const res = await app.api.get('user/users/?limit=lots');
    expectEnvelope(res, 400);
    expect(res.body.errors).toHaveProperty('limit');
    const cursor = await app.api.get('user/users/?cursor=garbage');
    expect(cursor.status).toBe(400);
  });
});
