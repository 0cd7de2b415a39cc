import { describe, expect, it } from 'vitest';
import { Client, baseUrl, manage, newApp, request, uid } from '../helpers/api.js';
import { MANAGE_TOKEN } from '../helpers/spawn.js';
import { expectEnvelope } from './util.js';

const url = (path: string) => `${baseUrl()}/api/v3/manage/${path}`;

describe('management API', () => {
  it('refuses a missing, wrong or app manage token with 403', async () => {
    const app = await newApp();
    const missing = await request('POST', url('createapplication'), { name: 'x' }, {});
    expectEnvelope(missing, 403);
    const wrong = await request('POST', url('createapplication'), { name: 'x' }, { 'x-manage-token': 'not-the-manage-token-at-all' });
    expectEnvelope(wrong, 403);
    const apiToken = await request('POST', url('createtoken'), { applicationid: app.appid }, { 'x-api-token': app.token });
    expectEnvelope(apiToken, 403);
  });

  it('createapplication returns the application with its settings and defaults', async () => {
    const name = uid('app');
    const res = await manage('createapplication', { name });
    expectEnvelope(res, 200);
    const data = res.body.data;
    expect(typeof data.appid).toBe('string');
    expect(data.appid).not.toBe('');
    expect(encodeURIComponent(data.appid)).toBe(data.appid);
    expect(data.name).toBe(name);
    expect(data.settings).toMatchObject({ userreportslimit: 3, useorganizationuserdatabase: false });
    const other = await manage('createapplication', { name });
    expect(other.body.data.appid).not.toBe(data.appid);
  });

  it('createapplication keeps the given settings (strings accepted for numbers and booleans)', async () => {
    const res = await manage('createapplication', { name: 'org app', userreportslimit: '3', useorganizationuserdatabase: 'true', organizationid: 'org-1' });
    expectEnvelope(res, 200);
    expect(res.body.data.settings).toMatchObject({ userreportslimit: 3, useorganizationuserdatabase: true, organizationid: 'org-1' });
  });

  it('createapplication without a name: 400 naming the field', async () => {
    const res = await manage('createapplication', {});
    expectEnvelope(res, 400);
    expect(res.body.errors).toHaveProperty('name');
    const bad = await manage('createapplication', { name: 'x', userreportslimit: 'many' });
    expectEnvelope(bad, 400);
    expect(res.body.errors).toHaveProperty('name');
    expect(bad.body.errors).toHaveProperty('userreportslimit');
  });

  it('a shared user database without an organizationid: 400 naming organizationid', async () => {
    const res = await manage('createapplication', { name: 'x', useorganizationuserdatabase: true });
    expectEnvelope(res, 400);
    expect(res.body.errors).toHaveProperty('organizationid');
    const blank = await manage('createapplication', { name: 'x', useorganizationuserdatabase: true, organizationid: '' });
    expectEnvelope(blank, 400);
  });

  it('createtoken returns a token that works for that application only', async () => {
    const created = (await manage('createapplication', { name: 't' })).body.data;
    const res = await manage('createtoken', { applicationid: created.appid, name: 'backend', permissions: ['read'] });
    expectEnvelope(res, 200);
    const token = res.body.data.token as string;
    expect(typeof token).toBe('string');
    expect(token.length).toBeGreaterThanOrEqual(16);
    const client = new Client(baseUrl(), created.appid, token);
    expectEnvelope(await client.get('user/users/'), 200);
    const second = (await manage('createtoken', { applicationid: created.appid })).body.data.token as string;
    expect(second).not.toBe(token);
    expectEnvelope(await new Client(baseUrl(), created.appid, second).get('user/users/'), 200);
    const other = await newApp();
    expect((await new Client(baseUrl(), other.appid, token).get('user/users/')).status).toBe(403);
  });

  it('createtoken for an unknown application: 404; without applicationid: 400', async () => {
    const unknown = await manage('createtoken', { applicationid: uid('noapp') });
    expectEnvelope(unknown, 404);
    const missing = await manage('createtoken', {});
    expectEnvelope(missing, 400);
    expect(missing.body.errors).toHaveProperty('applicationid');
  });

  const read = (path: string, headers: Record<string, string> = { 'x-manage-token': MANAGE_TOKEN }) => request('GET', url(path), undefined, headers);

  it('applications and applications/{id} refuse a missing, wrong or app token with 403', async () => {
    const app = await newApp();
    for (const path of ['applications', `applications/${app.appid}`]) {
      expectEnvelope(await read(path, {}), 403);
      expectEnvelope(await read(path, { 'x-manage-token': 'not-the-manage-token-at-all' }), 403);
      expectEnvelope(await read(path, { 'x-api-token': app.token }), 403);
    }
  });

  it('applications lists every application once, oldest first, in pages, without secrets', async () => {
    const created = [];
    for (let i = 0; i < 3; i++) created.push((await manage('createapplication', { name: uid('listed') })).body.data);
    /** Follows the cursor with pages of `limit`, at most `pages` of them. */
    const walk = async (limit: number, pages: number) => {
      const seen: { appid: string; name: string }[] = [];
      let cursor = '';
      for (let page = 0; page < pages; page++) {
        const res = await read(`applications?limit=${limit}${cursor === '' ? '' : `&cursor=${cursor}`}`);
        expectEnvelope(res, 200);
        const data = res.body.data;
        expect(data).toMatchObject({ kind: 'list.applications', itemcount: data.applications.length });
        expect(data.applications.length).toBeLessThanOrEqual(limit);
        expect(data.more).toBe(data.cursor !== '');
        for (const app of data.applications) {
          expect(app).not.toHaveProperty('jwtsecret');
          expect(app).not.toHaveProperty('webhooksecret');
        }
        seen.push(...data.applications);
        if (!data.more) break;
        cursor = data.cursor;
      }
      return seen;
    };
    const seen = await walk(200, 10_000);
    expect(await walk(2, 3)).toEqual(seen.slice(0, 6));
    const ids = seen.map((a) => a.appid);
    expect(new Set(ids).size).toBe(ids.length);
    const positions = created.map((c) => ids.indexOf(c.appid));
    expect(positions.every((p) => p >= 0)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    const listed = seen[positions[0] as number];
    expect(listed).toEqual({ kind: 'app.application', appid: created[0].appid, name: created[0].name, settings: created[0].settings, added: created[0].added });
  });

  it('applications/{id} returns the application with its secrets; unknown: 404', async () => {
    const created = (await manage('createapplication', { name: uid('one'), userreportslimit: 2 })).body.data;
    const res = await read(`applications/${created.appid}`);
    expectEnvelope(res, 200);
    expect(res.body.data).toEqual(created);
    expect(res.body.data.webhooksecret).toMatch(/^whsec_/);
    expectEnvelope(await read(`applications/${uid('noapp')}`), 404);
  });

  it('applications with a bad limit or cursor: 400 naming the field', async () => {
    const limit = await read('applications?limit=0');
    expectEnvelope(limit, 400);
    expect(limit.body.errors).toHaveProperty('limit');
    const cursor = await read('applications?cursor=not-a-cursor');
    expectEnvelope(cursor, 400);
    expect(cursor.body.errors).toHaveProperty('cursor');
  });
});
