import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newApp } from '../helpers/api.js';
import { spawnServer, type SpawnedServer } from '../helpers/spawn.js';
import { roomFixture, sleep } from './moderation-helpers.js';

const reportPath = (roomid: string, userid: string) => `chat/rooms/${roomid}/users/${userid}/report`;

describe('report a user in a room', () => {
  it('is refused with 412 while user reporting is off for the application', async () => {
    const r = await roomFixture({}, { userreportslimit: 0 });
    await r.join('alice');
    await r.join('bob');
    const res = await r.api.post(reportPath(r.roomid, 'alice'), { userid: 'bob', reporttype: 'abuse' });
    expect(res.status).toBe(412);
    expect(res.body.code).toBe(412);
  });

  it('validates the body and finds the user and room', async () => {
    const r = await roomFixture({}, { userreportslimit: 3 });
    await r.join('alice');
    await r.join('bob');
    const noType = await r.api.post(reportPath(r.roomid, 'alice'), { userid: 'bob' });
    expect(noType.status).toBe(400);
    expect(noType.body.errors).toHaveProperty('reporttype');
    const noReporter = await r.api.post(reportPath(r.roomid, 'alice'), { reporttype: 'spam' });
    expect(noReporter.status).toBe(400);
    expect(noReporter.body.errors).toHaveProperty('userid');
    expect((await r.api.post(reportPath(r.roomid, 'nobody'), { userid: 'bob', reporttype: 'spam' })).status).toBe(404);
    expect((await r.api.post(reportPath('noroom', 'alice'), { userid: 'bob', reporttype: 'spam' })).status).toBe(404);
  });

  it('records reports once per reporter and flags and shadow-bans the user at the limit', async () => {
    const r = await roomFixture({}, { userreportslimit: 2 });
    for (const u of ['alice', 'bob', 'carol']) await r.join(u);

    const first = await r.api.post(reportPath(r.roomid, 'alice'), { userId: 'bob', reportType: 'harassment' });
    expect(first.status).toBe(200);
    expect(first.body.data.kind).toBe('chat.room');
    expect(first.body.data.reportedusers).toEqual([{ userid: 'alice', reportedbyuserid: 'bob', reason: 'harassment', added: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/) }]);
    expect(first.body.data.flaggedusers).toEqual([]);

    const duplicate = await r.api.post(reportPath(r.roomid, 'alice'), { userid: 'bob', reporttype: 'spam' });
    expect(duplicate.status).toBe(200);
    expect(duplicate.body.data.reportedusers).toHaveLength(1);
    expect(duplicate.body.data.flaggedusers).toEqual([]);
    expect(duplicate.body.data.shadowbannedusers).toEqual([]);

    const second = await r.api.post(reportPath(r.roomid, 'alice'), { userid: 'carol', reporttype: 'spam' });
    expect(second.status).toBe(200);
    expect(second.body.data.reportedusers).toHaveLength(2);
    expect(second.body.data.flaggedusers).toEqual(['alice']);
    expect(second.body.data.shadowbannedusers).toEqual(['alice']);

    const said = await r.say('alice', 'can anyone see me');
    expect(said.shadowban).toBe(true);
  });

  it('confirms or clears a flagged user by decision', async () => {
    const r = await roomFixture({}, { userreportslimit: 1 });
    for (const u of ['alice', 'dave', 'bob']) await r.join(u);
    for (const u of ['alice', 'dave']) expect((await r.api.post(reportPath(r.roomid, u), { userid: 'bob', reporttype: 'spam' })).status).toBe(200);
    const decide = (userid: string, approve: unknown) => r.api.post(`chat/rooms/${r.roomid}/moderation/flaggedusers/${userid}/applydecision`, { approve });

    const confirmed = await decide('alice', true);
    expect(confirmed.status).toBe(200);
    expect(confirmed.body.data.flaggedusers).toEqual(['dave']);
    expect(confirmed.body.data.shadowbannedusers).toContain('alice');
    expect((await r.say('alice', 'still hidden')).shadowban).toBe(true);

    const cleared = await decide('dave', 'false');
    expect(cleared.status).toBe(200);
    expect(cleared.body.data.flaggedusers).toEqual([]);
    expect(cleared.body.data.shadowbannedusers).not.toContain('dave');
    expect((await r.say('dave', 'visible again')).shadowban).toBe(false);

    const notFlagged = await decide('bob', true);
    expect(notFlagged.status).toBe(400);
    expect(notFlagged.body.errors).toHaveProperty('userid');
    const noApprove = await r.api.post(`chat/rooms/${r.roomid}/moderation/flaggedusers/alice/applydecision`, {});
    expect(noApprove.status).toBe(400);
    expect(noApprove.body.errors).toHaveProperty('approve');
  });
});

describe('the user-report window', () => {
  let server: SpawnedServer;
  beforeAll(async () => {
    server = await spawnServer({ USER_REPORT_WINDOW_SECONDS: '2' });
  });
  afterAll(async () => {
    await server.stop();
  });

  it('counts only reports within the trailing window toward the limit', async () => {
    const app = await newApp({ userreportslimit: 2 }, server.url);
    const r = await roomFixture({}, {}, app);
    for (const u of ['alice', 'bob', 'carol', 'dave']) await r.join(u);
    expect((await r.api.post(reportPath(r.roomid, 'alice'), { userid: 'bob', reporttype: 'spam' })).status).toBe(200);
    await sleep(2500);
    const late = await r.api.post(reportPath(r.roomid, 'alice'), { userid: 'carol', reporttype: 'spam' });
    expect(late.status).toBe(200);
    expect(late.body.data.flaggedusers).toEqual([]);
    expect(late.body.data.shadowbannedusers).toEqual([]);
    const inWindow = await r.api.post(reportPath(r.roomid, 'alice'), { userid: 'dave', reporttype: 'spam' });
    expect(inWindow.body.data.flaggedusers).toEqual(['alice']);
  });
});
