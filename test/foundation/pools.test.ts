import { beforeAll, describe, expect, it } from 'vitest';
import { newApp, uid, type TestApp } from '../helpers/api.js';
import { expectEnvelope } from './util.js';

let a: TestApp;
let b: TestApp;
let otherOrg: TestApp;
let sameOrgNotShared: TestApp;
let org: string;
beforeAll(async () => {
  org = uid('org');
  a = await newApp({ useorganizationuserdatabase: true, organizationid: org, userreportslimit: 1 });
  b = await newApp({ useorganizationuserdatabase: 'true', organizationid: org, userreportslimit: 1 });
  otherOrg = await newApp({ useorganizationuserdatabase: true, organizationid: uid('org') });
  sameOrgNotShared = await newApp({ useorganizationuserdatabase: false, organizationid: org });
});

describe('shared user pools', () => {
  it('two apps of the same organization see the same users; others do not', async () => {
    const u = uid('u');
    const created = await a.api.post(`user/users/${u}`, { displayname: 'Shared', handle: `sh_${u}` });
    expectEnvelope(created, 200);
    const seen = await b.api.get(`user/users/${u}`);
    expectEnvelope(seen, 200);
    expect(seen.body.data).toMatchObject({ userid: u, displayname: 'Shared', handle: `sh_${u}` });
    expectEnvelope(await otherOrg.api.get(`user/users/${u}`), 404);
    expectEnvelope(await sameOrgNotShared.api.get(`user/users/${u}`), 404);
    expect((await b.api.post('user/search', { userid: u })).body.data.users).toHaveLength(1);
    expect((await otherOrg.api.post('user/search', { userid: u })).body.data.users).toHaveLength(0);
  });

  it('updates through one app show through the other', async () => {
    const u = uid('u');
    await a.api.post(`user/users/${u}`, { displayname: 'Before' });
    await b.api.get(`user/users/${u}`);
    await b.api.post(`user/users/${u}`, { displayname: 'After' });
    expect((await a.api.get(`user/users/${u}`)).body.data.displayname).toBe('After');
  });

  it('roles are shared', async () => {
    const u = uid('u');
    await a.api.post(`user/users/${u}`, { displayname: 'R' });
    expect((await b.api.get(`user/users/${u}`)).body.data.role).toBe('user');
    expectEnvelope(await a.api.post(`user/users/${u}/role`, { role: 'moderator' }), 200);
    expect((await b.api.get(`user/users/${u}`)).body.data.role).toBe('moderator');
  });

  it('global bans, shadow bans and mutes are shared', async () => {
    const u = uid('u');
    await a.api.post(`user/users/${u}`, { displayname: 'B' });
    expect((await a.api.get(`user/users/${u}`)).body.data.banned).toBe(false);
    await b.api.post(`user/users/${u}/ban`, { applyeffect: true });
    await b.api.post(`user/users/${u}/shadowban`, { applyeffect: true });
    await b.api.post(`user/users/${u}/mute`, { applyeffect: true });
    const got = (await a.api.get(`user/users/${u}`)).body.data;
    expect(got).toMatchObject({ banned: true, shadowbanned: true, muted: true });
    // a same-named user in another pool is untouched
    await otherOrg.api.post(`user/users/${u}`, { displayname: 'Namesake' });
    expect((await otherOrg.api.get(`user/users/${u}`)).body.data).toMatchObject({ banned: false, shadowbanned: false, muted: false, displayname: 'Namesake' });
  });

  it('handles are unique across the shared pool but not across pools', async () => {
    const handle = `pool_${uid()}`;
    expectEnvelope(await a.api.post(`user/users/${uid('u')}`, { displayname: 'One', handle }), 200);
    expectEnvelope(await b.api.post(`user/users/${uid('u')}`, { displayname: 'Two', handle: handle.toUpperCase() }), 409);
    expectEnvelope(await otherOrg.api.post(`user/users/${uid('u')}`, { displayname: 'Three', handle }), 200);
    expectEnvelope(await sameOrgNotShared.api.post(`user/users/${uid('u')}`, { displayname: 'Four', handle }), 200);
  });

  it('a delete through one app removes the user for the other', async () => {
    const u = uid('u');
    await a.api.post(`user/users/${u}`, { displayname: 'Gone' });
    expect((await a.api.get(`user/users/${u}`)).status).toBe(200);
    expect((await b.api.get(`user/users/${u}`)).status).toBe(200);
    expectEnvelope(await b.api.delete(`user/users/${u}`), 200);
    expectEnvelope(await a.api.get(`user/users/${u}`), 404);
    expectEnvelope(await b.api.get(`user/users/${u}`), 404);
  });

  it('lists of the shared pool are the same from both apps', async () => {
    const fromA = await a.api.get('user/users/?limit=200');
    const fromB = await b.api.get('user/users/?limit=200');
    expect(fromA.body.data.itemcount).toBeGreaterThan(0);
    expect(fromB.body.data.users.map((x: { userid: string }) => x.userid)).toEqual(fromA.body.data.users.map((x: { userid: string }) => x.userid));
  });

  it('the user tokens of each app are still their own', async () => {
    const u = uid('u');
    await a.api.post(`user/users/${u}`, { displayname: 'T' });
    expect((await b.api.withHeaders({ 'x-api-token': a.token }).get(`user/users/${u}`)).status).toBe(403);
  });
});
