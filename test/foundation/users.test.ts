import { beforeAll, describe, expect, it } from 'vitest';
import { newApp, uid, type TestApp } from '../helpers/api.js';
import { expectEnvelope } from './util.js';

const BAD_HANDLE = (h: string) => `The handle requested (${h}) contains characters that are not allowed.  Use only [abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ1234567890_]`;

let app: TestApp;
beforeAll(async () => {
  app = await newApp();
});

const ids = (res: { body: { data: { users: { userid: string }[] } } }) => res.body.data.users.map((u) => u.userid);

describe('create, get, update, delete', () => {
  it('creates a user and returns app.user; GET returns the same', async () => {
    const u = uid('u');
    const handle = `h_${u}`;
    const res = await app.api.post(`user/users/${u}`, { handle, displayname: 'Ada L', pictureurl: 'https://p.test/a.png', profileurl: 'https://p.test/ada', customtags: ['a', 'b'] });
    expectEnvelope(res, 200);
    expect(res.body.data).toMatchObject({
      kind: 'app.user',
      userid: u,
      handle,
      handlelowercase: handle.toLowerCase(),
      displayname: 'Ada L',
      pictureurl: 'https://p.test/a.png',
      profileurl: 'https://p.test/ada',
      role: 'user',
      banned: false,
    });
    const got = await app.api.get(`user/users/${u}`);
    expectEnvelope(got, 200);
    expect(got.body.data).toEqual(res.body.data);
  });

  it('displayname is optional on create: it defaults to the handle', async () => {
    const u = uid('u');
    const res = await app.api.post(`user/users/${u}`, { handle: `x${u}` });
    expectEnvelope(res, 200);
    expect(res.body.data).toMatchObject({ handle: `x${u}`, displayname: `x${u}` });
    expect((await app.api.get(`user/users/${u}`)).body.data.displayname).toBe(`x${u}`);
  });

  it('a user created with neither displayname nor handle gets a generated handle, shown as the displayname', async () => {
    const u = uid('u');
    const res = await app.api.post(`user/users/${u}`, {});
    expectEnvelope(res, 200);
    expect(res.body.data.handle).not.toBe('');
    expect(res.body.data.displayname).toBe(res.body.data.handle);
  });

  it('update changes the given fields and keeps the others; displayname not needed', async () => {
    const u = uid('u');
    const created = (await app.api.post(`user/users/${u}`, { displayname: 'First', pictureurl: 'https://p.test/1.png' })).body.data;
    const res = await app.api.post(`user/users/${u}`, { profileurl: 'https://p.test/prof' });
    expectEnvelope(res, 200);
    expect(res.body.data).toMatchObject({ displayname: 'First', pictureurl: 'https://p.test/1.png', profileurl: 'https://p.test/prof', handle: created.handle });
    const renamed = await app.api.post(`user/users/${u}`, { displayname: 'Second' });
    expect(renamed.body.data.displayname).toBe('Second');
    expect((await app.api.get(`user/users/${u}`)).body.data.displayname).toBe('Second');
  });

  it('delete returns deleted.appuser, then the user is 404 and gone from lists', async () => {
    const u = uid('del');
    await app.api.post(`user/users/${u}`, { displayname: 'Doomed', handle: `d${u}` });
    expect((await app.api.get(`user/users/${u}`)).status).toBe(200);
    const res = await app.api.delete(`user/users/${u}`);
    expectEnvelope(res, 200);
    expect(res.body.data.kind).toBe('deleted.appuser');
    expect(res.body.data.user.userid).toBe(u);
    expectEnvelope(await app.api.get(`user/users/${u}`), 404);
    expectEnvelope(await app.api.delete(`user/users/${u}`), 404);
    expect((await app.api.post('user/search', { userid: u })).body.data.users).toEqual([]);
    // its handle is free again
    const again = await app.api.post(`user/users/${uid('u')}`, { displayname: 'Heir', handle: `d${u}` });
    expectEnvelope(again, 200);
  });

  it('unknown user: 404 on get, role, effects and report', async () => {
    const nobody = uid('nobody');
    expectEnvelope(await app.api.get(`user/users/${nobody}`), 404);
    expectEnvelope(await app.api.post(`user/users/${nobody}/role`, { role: 'admin' }), 404);
    for (const effect of ['ban', 'shadowban', 'mute']) expectEnvelope(await app.api.post(`user/users/${nobody}/${effect}`, { applyeffect: true }), 404);
  });

  it('user ids are opaque path segments (URL-encoded characters round-trip)', async () => {
    const u = `${uid('odd')}@example.com`;
    const res = await app.api.post(`user/users/${encodeURIComponent(u)}`, { displayname: 'Mail' });
    expectEnvelope(res, 200);
    expect(res.body.data.userid).toBe(u);
    expect((await app.api.get(`user/users/${encodeURIComponent(u)}`)).body.data.userid).toBe(u);
  });
});

describe('handle rules', () => {
  it.each(['has space', 'dash-ed', 'dot.ted', 'ümlaut', 'emoji😀', 'semi;colon'])('refuses %j with 405 and the exact message', async (handle) => {
    const u = uid('u');
    const res = await app.api.post(`user/users/${u}`, { displayname: 'Bad', handle });
    expectEnvelope(res, 405);
    expect(res.body.message).toBe(BAD_HANDLE(handle));
    expect((await app.api.get(`user/users/${u}`)).status).toBe(404);
  });

  it('refuses bad characters on update too, keeping the old handle', async () => {
    const u = uid('u');
    const handle = `ok_${u}`;
    await app.api.post(`user/users/${u}`, { displayname: 'Ok', handle });
    const res = await app.api.post(`user/users/${u}`, { handle: 'not ok!' });
    expectEnvelope(res, 405);
    expect(res.body.message).toBe(BAD_HANDLE('not ok!'));
    expect((await app.api.get(`user/users/${u}`)).body.data.handle).toBe(handle);
  });

  it('accepts letters, digits and underscore', async () => {
    const handle = `Az_09_${uid()}`;
    const res = await app.api.post(`user/users/${uid('u')}`, { displayname: 'Good', handle });
    expectEnvelope(res, 200);
    expect(res.body.data.handle).toBe(handle);
    expect(res.body.data.handlelowercase).toBe(handle.toLowerCase());
  });

  it('is unique case-insensitively: 409 on explicit create and on update', async () => {
    const handle = `Taken_${uid()}`;
    const owner = uid('owner');
    await app.api.post(`user/users/${owner}`, { displayname: 'Owner', handle });
    const create = await app.api.post(`user/users/${uid('u')}`, { displayname: 'Copy', handle: handle.toUpperCase() });
    expectEnvelope(create, 409);
    const other = uid('u');
    const otherHandle = `free_${other}`;
    await app.api.post(`user/users/${other}`, { displayname: 'Other', handle: otherHandle });
    const update = await app.api.post(`user/users/${other}`, { handle: handle.toLowerCase() });
    expectEnvelope(update, 409);
    expect((await app.api.get(`user/users/${other}`)).body.data.handle).toBe(otherHandle);
  });

  it('a user may re-send its own handle, or change only its case', async () => {
    const u = uid('u');
    const handle = `mine_${u}`;
    await app.api.post(`user/users/${u}`, { displayname: 'Mine', handle });
    expectEnvelope(await app.api.post(`user/users/${u}`, { handle }), 200);
    const recased = await app.api.post(`user/users/${u}`, { handle: handle.toUpperCase() });
    expectEnvelope(recased, 200);
    expect(recased.body.data.handle).toBe(handle.toUpperCase());
    expect(recased.body.data.handlelowercase).toBe(handle.toLowerCase());
  });

  it('is generated from the displayname when omitted, valid and unique', async () => {
    const stem = `Zed${uid().slice(-6)}`;
    const first = await app.api.post(`user/users/${uid('u')}`, { displayname: `${stem} Q. Public!` });
    expectEnvelope(first, 200);
    const h1 = first.body.data.handle as string;
    expect(h1).toMatch(/^[A-Za-z0-9_]+$/);
    expect(h1.toLowerCase().startsWith(stem.toLowerCase())).toBe(true);
    const second = await app.api.post(`user/users/${uid('u')}`, { displayname: `${stem} Q. Public!` });
    expectEnvelope(second, 200);
    const h2 = second.body.data.handle as string;
    expect(h2).toMatch(/^[A-Za-z0-9_]+$/);
    expect(h2.toLowerCase()).not.toBe(h1.toLowerCase());
  });

  it('a displayname with no usable characters still yields a valid handle', async () => {
    const res = await app.api.post(`user/users/${uid('u')}`, { displayname: '😀 — ✨' });
    expectEnvelope(res, 200);
    expect(res.body.data.handle).toMatch(/^[A-Za-z0-9_]+$/);
  });
});

describe('roles', () => {
  it('sets role by string and by 0/1/2 (string or number); responses use strings', async () => {
    const u = uid('u');
    await app.api.post(`user/users/${u}`, { displayname: 'R' });
    const cases: [unknown, string][] = [
      ['moderator', 'moderator'],
      ['admin', 'admin'],
      ['user', 'user'],
      [1, 'moderator'],
      [2, 'admin'],
      [0, 'user'],
      ['2', 'admin'],
      ['1', 'moderator'],
      ['0', 'user'],
    ];
    for (const [role, expected] of cases) {
      const res = await app.api.post(`user/users/${u}/role`, { role });
      expectEnvelope(res, 200);
      expect(res.body.data.role).toBe(expected);
      expect((await app.api.get(`user/users/${u}`)).body.data.role).toBe(expected);
    }
  });

  it.each([['superuser'], [3], ['3'], [-1], [true], [''], [null], [1.5]])('refuses role %j with 400 naming role', async (role) => {
    const u = uid('u');
    await app.api.post(`user/users/${u}`, { displayname: 'R' });
    await app.api.post(`user/users/${u}/role`, { role: 'moderator' });
    const res = await app.api.post(`user/users/${u}/role`, { role });
    expectEnvelope(res, 400);
    expect(res.body.errors).toHaveProperty('role');
    expect((await app.api.get(`user/users/${u}`)).body.data.role).toBe('moderator');
  });

  it('role given on create is kept', async () => {
    const res = await app.api.post(`user/users/${uid('u')}`, { displayname: 'M', role: 1 });
    expectEnvelope(res, 200);
    expect(res.body.data.role).toBe('moderator');
  });
});

describe('list', () => {
  it('pages with the cursor without loss or repeat', async () => {
    const fresh = await newApp();
    const created = new Set<string>();
    for (let i = 0; i < 11; i++) {
      const u = uid('p');
      created.add(u);
      expect((await fresh.api.post(`user/users/${u}`, { displayname: `P ${i}` })).status).toBe(200);
    }
    const seen: string[] = [];
    let cursor = '';
    for (let page = 0; page < 10; page++) {
      const res = await fresh.api.get(`user/users/?limit=4${cursor === '' ? '' : `&cursor=${encodeURIComponent(cursor)}`}`);
      expectEnvelope(res, 200);
      const data = res.body.data;
      expect(data.kind).toBe('list.users');
      expect(data.itemcount).toBe(data.users.length);
      seen.push(...ids(res));
      expect(data.more).toBe(data.cursor !== '');
      if (!data.more) break;
      expect(data.users).toHaveLength(4);
      cursor = data.cursor;
    }
    expect(seen).toHaveLength(created.size);
    expect(new Set(seen)).toEqual(created);
  });

  it('an empty pool lists nothing with an empty cursor', async () => {
    const empty = await newApp();
    const res = await empty.api.get('user/users/');
    expectEnvelope(res, 200);
    expect(res.body.data).toMatchObject({ kind: 'list.users', cursor: '', more: false, itemcount: 0, users: [] });
  });
});

describe('search', () => {
  const stem = `Srch${uid().slice(-6)}`;
  const a = uid('sa');
  const b = uid('sb');
  beforeAll(async () => {
    await app.api.post(`user/users/${a}`, { displayname: `Mary ${stem} Smith`, handle: `${stem}_mary` });
    await app.api.post(`user/users/${b}`, { displayname: 'Bob Jones', handle: `${stem}_bob` });
  });

  it('without criteria: 400 with the exact message', async () => {
    const res = await app.api.post('user/search', {});
    expectEnvelope(res, 400);
    expect(res.body.message).toBe('Search requires either a userid, handle or name parameter.');
    const blank = await app.api.post('user/search', { handle: '', name: '', userid: '' });
    expect(blank.status).toBe(400);
    expect(blank.body.message).toBe('Search requires either a userid, handle or name parameter.');
  });

  it('by handle (case-insensitive)', async () => {
    const res = await app.api.post('user/search', { handle: `${stem}_MARY`.toLowerCase() });
    expectEnvelope(res, 200);
    expect(res.body.data.kind).toBe('list.users');
    expect(ids(res)).toEqual([a]);
    const both = await app.api.post('user/search', { handle: stem.toUpperCase() });
    expect(new Set(ids(both))).toEqual(new Set([a, b]));
  });

  it('by name (case-insensitive part of the display name)', async () => {
    const res = await app.api.post('user/search', { name: stem.toLowerCase() });
    expectEnvelope(res, 200);
    expect(ids(res)).toEqual([a]);
  });

  it('by userid', async () => {
    const res = await app.api.post('user/search', { userid: b });
    expectEnvelope(res, 200);
    expect(ids(res)).toEqual([b]);
    expect(res.body.data.users[0].handle).toBe(`${stem}_bob`);
  });

  it('no match: an empty list', async () => {
    const res = await app.api.post('user/search', { handle: `zz${uid()}` });
    expectEnvelope(res, 200);
    expect(res.body.data).toMatchObject({ itemcount: 0, more: false, cursor: '', users: [] });
  });

  it('pages with limit and cursor', async () => {
    const name = `Pg${uid()}`;
    const made = new Set<string>();
    for (let i = 0; i < 5; i++) {
      const u = uid('sp');
      made.add(u);
      await app.api.post(`user/users/${u}`, { displayname: `${name} ${i}` });
    }
    const seen: string[] = [];
    let cursor = '';
    for (let i = 0; i < 6; i++) {
      const res = await app.api.post('user/search', { name, limit: 2, cursor });
      expect(res.status).toBe(200);
      seen.push(...ids(res));
      if (!res.body.data.more) break;
      cursor = res.body.data.cursor;
    }
    expect(seen).toHaveLength(5);
    expect(new Set(seen)).toEqual(made);
  });
});
