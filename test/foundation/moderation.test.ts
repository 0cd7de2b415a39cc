import { beforeAll, describe, expect, it } from 'vitest';
import { newApp, uid, type TestApp } from '../helpers/api.js';
import { expectEnvelope, sleep } from './util.js';

let app: TestApp;
beforeAll(async () => {
  app = await newApp({ userreportslimit: 3 });
});

async function newUser(name = 'U'): Promise<string> {
  const u = uid('u');
  expect((await app.api.post(`user/users/${u}`, { displayname: name })).status).toBe(200);
  return u;
}

const EFFECTS = [
  ['ban', 'banned', 'banexpires'],
  ['shadowban', 'shadowbanned', 'shadowbanexpires'],
  ['mute', 'muted', 'muteexpires'],
] as const;

describe.each(EFFECTS)('global %s', (segment, field, expiresField) => {
  it('applies until lifted', async () => {
    const u = await newUser();
    const on = await app.api.post(`user/users/${u}/${segment}`, { applyeffect: true });
    expectEnvelope(on, 200);
    expect(on.body.data.kind).toBe('app.user');
    expect(on.body.data[field]).toBe(true);
    expect((await app.api.get(`user/users/${u}`)).body.data[field]).toBe(true);
    const off = await app.api.post(`user/users/${u}/${segment}`, { applyeffect: false });
    expectEnvelope(off, 200);
    expect(off.body.data[field]).toBe(false);
    expect((await app.api.get(`user/users/${u}`)).body.data[field]).toBe(false);
  });

  it('with expireseconds is lifted at expiry', async () => {
    const u = await newUser();
    const on = await app.api.post(`user/users/${u}/${segment}`, { applyeffect: true, expireseconds: 1 });
    expectEnvelope(on, 200);
    expect(on.body.data[field]).toBe(true);
    expect(Date.parse(on.body.data[expiresField])).toBeGreaterThan(Date.now() - 500);
    expect((await app.api.get(`user/users/${u}`)).body.data[field]).toBe(true);
    await sleep(1300);
    const after = await app.api.get(`user/users/${u}`);
    expect(after.body.data[field]).toBe(false);
    const listed = await app.api.post('user/search', { userid: u });
    expect(listed.body.data.users[0][field]).toBe(false);
  });

  it('does not touch the other effects', async () => {
    const u = await newUser();
    await app.api.post(`user/users/${u}/${segment}`, { applyeffect: true });
    const got = (await app.api.get(`user/users/${u}`)).body.data;
    for (const [, other] of EFFECTS) expect(got[other]).toBe(other === field);
  });

  it('requires applyeffect', async () => {
    const u = await newUser();
    const res = await app.api.post(`user/users/${u}/${segment}`, { expireseconds: 5 });
    expectEnvelope(res, 400);
    expect(res.body.errors).toHaveProperty('applyeffect');
  });
});

describe('global purge', () => {
  it('answers 200 for a known user with byuserid', async () => {
    const u = await newUser();
    const res = await app.api.post(`user/users/${u}/globalpurge`, { byuserid: uid('mod') });
    expectEnvelope(res, 200);
    expect((await app.api.get(`user/users/${u}`)).status).toBe(200);
  });
});

describe('user reports and the reported-users queue', () => {
  type Entry = { userid: string; reports: { userid: string; reporttype: string; added: string }[] };
  async function queue(target: TestApp = app): Promise<Entry[]> {
    const all: Entry[] = [];
    let cursor = '';
    for (let i = 0; i < 50; i++) {
      const res = await target.api.get(`user/moderation/queues/reportedusers?limit=2${cursor === '' ? '' : `&cursor=${encodeURIComponent(cursor)}`}`);
      expectEnvelope(res, 200);
      expect(res.body.data.itemcount).toBe(res.body.data.reportedusers.length);
      all.push(...res.body.data.reportedusers);
      if (!res.body.data.more) break;
      cursor = res.body.data.cursor;
    }
    return all;
  }

  it('records a report once per reporter', async () => {
    const target = await newUser('Troll');
    const r1 = uid('rep');
    const r2 = uid('rep');
    const first = await app.api.post(`user/users/${target}/report`, { userid: r1, reporttype: 'abuse' });
    expectEnvelope(first, 200);
    const dup = await app.api.post(`user/users/${target}/report`, { userid: r1, reporttype: 'spam' });
    expectEnvelope(dup, 200);
    let entry = (await queue()).find((e) => e.userid === target);
    expect(entry).toBeDefined();
    expect(entry?.reports.map((r) => r.userid)).toEqual([r1]);
    expect(entry?.reports[0]?.reporttype).toBe('abuse');
    expect(entry?.reports[0]?.added).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    await app.api.post(`user/users/${target}/report`, { userid: r2, reporttype: 'hate' });
    entry = (await queue()).find((e) => e.userid === target);
    expect(new Set(entry?.reports.map((r) => r.userid))).toEqual(new Set([r1, r2]));
  });

  it('the queue pages without loss or repeat', async () => {
    const fresh = await newApp({ userreportslimit: 1 });
    const reported = new Set<string>();
    for (let i = 0; i < 5; i++) {
      const u = uid('t');
      await fresh.api.post(`user/users/${u}`, { displayname: 'T' });
      await fresh.api.post(`user/users/${u}/report`, { userid: uid('r'), reporttype: 'spam' });
      reported.add(u);
    }
    const entries = await queue(fresh);
    expect(entries.map((e) => e.userid)).toHaveLength(5);
    expect(new Set(entries.map((e) => e.userid))).toEqual(reported);
  });

  it('concurrent reports of many users still page without loss', async () => {
    const fresh = await newApp({ userreportslimit: 1 });
    const users = Array.from({ length: 8 }, () => uid('c'));
    await Promise.all(users.map((u) => fresh.api.post(`user/users/${u}`, { displayname: 'C' })));
    await Promise.all(users.map((u) => fresh.api.post(`user/users/${u}/report`, { userid: 'same-reporter', reporttype: 'spam' })));
    const entries = await queue(fresh);
    expect(entries).toHaveLength(users.length);
    expect(new Set(entries.map((e) => e.userid))).toEqual(new Set(users));
  });

  it('refuses a bad report: unknown user 404, missing reporter or bad type 400', async () => {
    expectEnvelope(await app.api.post(`user/users/${uid('ghost')}/report`, { userid: uid('r'), reporttype: 'spam' }), 404);
    const target = await newUser();
    const noReporter = await app.api.post(`user/users/${target}/report`, { reporttype: 'spam' });
    expectEnvelope(noReporter, 400);
    expect(noReporter.body.errors).toHaveProperty('userid');
    const badType = await app.api.post(`user/users/${target}/report`, { userid: uid('r'), reporttype: 'meh' });
    expectEnvelope(badType, 400);
    expect(badType.body.errors).toHaveProperty('reporttype');
    expect((await queue()).find((e) => e.userid === target)).toBeUndefined();
  });

  it('an application with user reporting off answers 412', async () => {
    const off = await newApp({ userreportslimit: 0 });
    const u = uid('u');
    await off.api.post(`user/users/${u}`, { displayname: 'U' });
    expectEnvelope(await off.api.post(`user/users/${u}/report`, { userid: uid('r'), reporttype: 'spam' }), 412);
    expect(await queue(off)).toEqual([]);
  });
});
