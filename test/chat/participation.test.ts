import { beforeAll, describe, expect, it } from 'vitest';
import { newApp, uid, type TestApp } from '../helpers/api.js';
import { drain, join, makeRoom, say } from './helpers.js';

let t: TestApp;
beforeAll(async () => {
  t = await newApp();
});

describe('joining and leaving rooms', () => {
  it('join creates the user, counts them in the room and returns user, room, eventscursor, subscription', async () => {
    const room = await makeRoom(t.api);
    const userid = uid('j');
    const res = await t.api.post(`chat/rooms/${room.id}/join`, { userId: userid, handle: 'joiner', displayName: 'Joiner', pictureUrl: 'http://p/x.png' });
    expect(res.status).toBe(200);
    const data = res.body.data;
    expect(data.kind).toBe('chat.joinroom');
    expect(data.user).toMatchObject({ kind: 'app.user', userid, handle: 'joiner', displayname: 'Joiner', pictureurl: 'http://p/x.png' });
    expect(data.room.inroom).toBe(1);
    expect(data.eventscursor.kind).toBe('list.chatevents');
    expect(data.eventscursor.events.map((e: { eventtype: string }) => e.eventtype)).toEqual(['enter']);
    expect(data.subscription).toMatchObject({ kind: 'chat.subscription', roomid: room.id, userid, roomname: room.name });
    expect((await t.api.get(`user/users/${userid}`)).body.data.handle).toBe('joiner');
  });

  it('join updates the fields given for an existing user and keeps the others', async () => {
    const room = await makeRoom(t.api);
    const userid = uid('e');
    await join(t.api, room.id, userid, { handle: uid('h'), pictureurl: 'http://a' });
    const again = await join(t.api, room.id, userid, { displayname: 'Changed' });
    expect(again.user.displayname).toBe('Changed');
    expect(again.user.pictureurl).toBe('http://a');
    expect(again.room.inroom).toBe(1);
  });

  it('gives a variant when the handle is taken', async () => {
    const room = await makeRoom(t.api);
    const handle = uid('taken');
    await join(t.api, room.id, uid('a'), { handle });
    const second = await join(t.api, room.id, uid('b'), { handle });
    expect(second.user.handle).toBe(`${handle}1`);
  });

  it('joins by customid, 404 for an unknown room', async () => {
    const customid = uid('jc');
    const room = await makeRoom(t.api, { customid });
    const res = await t.api.post(`chat/roomsbycustomid/${customid}/join`, { userid: uid('c'), displayname: 'C' });
    expect(res.status).toBe(200);
    expect(res.body.data.room.id).toBe(room.id);
    expect((await t.api.post(`chat/roomsbycustomid/${uid('x')}/join`, { userid: uid('c') })).status).toBe(404);
    expect((await t.api.post(`chat/rooms/${uid('x')}/join`, { userid: uid('c') })).status).toBe(404);
  });

  it('refuses a join without userid with 400 naming it', async () => {
    const room = await makeRoom(t.api);
    const res = await t.api.post(`chat/rooms/${room.id}/join`, { displayname: 'nobody' });
    expect(res.status).toBe(400);
    expect(res.body.errors.userid).toBeTruthy();
  });

  it('only joined users run commands', async () => {
    const room = await makeRoom(t.api);
    const userid = uid('n');
    await t.api.post(`user/users/${userid}`, { displayname: 'N' });
    const res = await t.api.post(`chat/rooms/${room.id}/command`, { userid, command: 'hi' });
    expect(res.status).toBe(403);
    expect(res.body.message).toMatch(/must join/);
  });

  it('exit emits exit, lowers inroom, ends the subscription and stops commands until the user joins again', async () => {
    const room = await makeRoom(t.api);
    const a = await join(t.api, room.id);
    const b = await join(t.api, room.id);
    const res = await t.api.post(`chat/rooms/${room.id}/exit`, { userid: b.user.userid });
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('Success');
    const seen = await drain(t.api, room.id, a.eventscursor.cursor);
    expect(seen.events.map((e) => `${e.eventtype}:${e.userid}`)).toEqual([`enter:${b.user.userid}`, `exit:${b.user.userid}`]);
    expect((await t.api.get(`chat/rooms/${room.id}`)).body.data.inroom).toBe(1);
    expect((await t.api.get(`chat/user/${b.user.userid}/subscriptions`)).body.data.subscriptions).toEqual([]);
    expect((await t.api.post(`chat/rooms/${room.id}/command`, { userid: b.user.userid, command: 'x' })).status).toBe(403);
    await join(t.api, room.id, b.user.userid);
    await say(t.api, room.id, b.user.userid, 'back');
    expect((await t.api.get(`chat/rooms/${room.id}`)).body.data.inroom).toBe(2);
  });

  it('a room created without enableenterandexit emits no enter or exit events', async () => {
    const created = await t.api.post('chat/rooms', { name: uid('quiet') });
    expect(created.body.data.enableenterandexit).toBe(false);
    const a = await join(t.api, created.body.data.id);
    expect(a.eventscursor.events).toEqual([]);
    const b = await join(t.api, created.body.data.id);
    await t.api.post(`chat/rooms/${created.body.data.id}/exit`, { userid: b.user.userid });
    expect((await drain(t.api, created.body.data.id, a.eventscursor.cursor)).events).toEqual([]);
  });

  it('a join without displayname shows the user by the handle', async () => {
    const room = await makeRoom(t.api);
    const handle = uid('plain');
    const res = await t.api.post(`chat/rooms/${room.id}/join`, { userid: uid('p'), handle });
    expect(res.status).toBe(200);
    expect(res.body.data.user).toMatchObject({ handle, displayname: handle });
  });

  it('refuses a profane display name or handle with 405 where the profanity filter is on, writing nothing', async () => {
    const room = await makeRoom(t.api);
    const rude = uid('rude');
    const byName = await t.api.post(`chat/rooms/${room.id}/join`, { userid: rude, displayname: 'fuck face' });
    expect(byName.status).toBe(405);
    const byHandle = await t.api.post(`chat/rooms/${room.id}/join`, { userid: rude, handle: 'shithead' });
    expect(byHandle.status).toBe(405);
    expect((await t.api.get(`user/users/${rude}`)).status).toBe(404);
    expect((await t.api.get(`chat/rooms/${room.id}`)).body.data.inroom).toBe(0);
    expect((await t.api.get(`chat/rooms/${room.id}/updates`)).body.data.events).toEqual([]);
    const unfiltered = await makeRoom(t.api, { enableprofanityfilter: false });
    const allowed = await t.api.post(`chat/rooms/${unfiltered.id}/join`, { userid: rude, displayname: 'fuck face' });
    expect(allowed.status).toBe(200);
    expect(allowed.body.data.user.displayname).toBe('fuck face');
  });

  it('emits no enter or exit events when enableenterandexit is off', async () => {
    const room = await makeRoom(t.api, { enableenterandexit: false });
    const a = await join(t.api, room.id);
    const b = await join(t.api, room.id);
    await t.api.post(`chat/rooms/${room.id}/exit`, { userid: b.user.userid });
    expect((await drain(t.api, room.id, a.eventscursor.cursor)).events).toEqual([]);
  });

  it('touch keeps a session alive and 404s for users not in the room', async () => {
    const room = await makeRoom(t.api);
    const a = await join(t.api, room.id);
    const res = await t.api.post(`chat/rooms/${room.id}/sessions/${a.user.userid}/touch`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ kind: 'chat.subscription', roomid: room.id, userid: a.user.userid });
    expect((await t.api.post(`chat/rooms/${room.id}/sessions/${uid('ghost')}/touch`)).status).toBe(404);
  });

  it('lists participants with users and paging', async () => {
    const room = await makeRoom(t.api);
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push((await join(t.api, room.id)).user.userid);
    const first = await t.api.get(`chat/rooms/${room.id}/participants?limit=2`);
    expect(first.body.data.kind).toBe('chat.list.participants');
    expect(first.body.data.itemcount).toBe(2);
    expect(first.body.data.more).toBe(true);
    const second = await t.api.get(`chat/rooms/${room.id}/participants?limit=2&cursor=${first.body.data.cursor}`);
    const all = [...first.body.data.participants, ...second.body.data.participants];
    expect(all.map((p: { user: { userid: string } }) => p.user.userid).sort()).toEqual(ids.sort());
    expect(all[0].kind).toBe('chat.participant');
  });

  it("lists a user's subscriptions (Cursor/Limit spelling) across rooms", async () => {
    const userid = uid('s');
    const rooms = [await makeRoom(t.api), await makeRoom(t.api), await makeRoom(t.api)];
    for (const r of rooms) await join(t.api, r.id, userid);
    const first = await t.api.get(`chat/user/${userid}/subscriptions?Limit=2`);
    expect(first.status).toBe(200);
    expect(first.body.data.kind).toBe('list.userroomsubscriptions');
    expect(first.body.data.more).toBe(true);
    expect(first.body.data.next).toContain('/subscriptions?cursor=');
    const second = await t.api.get(`chat/user/${userid}/subscriptions?Limit=2&Cursor=${first.body.data.cursor}`);
    expect(second.body.data.next).toBe('');
    const roomids = [...first.body.data.subscriptions, ...second.body.data.subscriptions].map((s: { roomid: string }) => s.roomid);
    expect(roomids.sort()).toEqual(rooms.map((r) => r.id).sort());
    expect((await t.api.get(`chat/user/${uid('nobody')}/subscriptions`)).status).toBe(404);
  });

  it('a globally banned user cannot join', async () => {
    const room = await makeRoom(t.api);
    const userid = uid('banned');
    await t.api.post(`user/users/${userid}`, { displayname: 'B' });
    await t.api.post(`user/users/${userid}/ban`, { applyeffect: true });
    const res = await t.api.post(`chat/rooms/${room.id}/join`, { userid });
    expect(res.status).toBe(403);
    expect(res.body.message).toMatch(/banned/);
  });

  it('a bounced user cannot rejoin', async () => {
    const room = await makeRoom(t.api);
    const a = await join(t.api, room.id);
    expect((await t.api.post(`chat/rooms/${room.id}/bounce`, { userid: a.user.userid, bounce: true })).status).toBe(200);
    const res = await t.api.post(`chat/rooms/${room.id}/join`, { userid: a.user.userid });
    expect(res.status).toBe(403);
    expect(res.body.message).toMatch(/bounced/);
    expect((await t.api.post(`chat/rooms/${room.id}/command`, { userid: a.user.userid, command: 'x' })).status).toBe(403);
  });

  it('the join eventscursor holds the last `limit` messages and continues in updates', async () => {
    const room = await makeRoom(t.api, { enableenterandexit: false });
    const a = await join(t.api, room.id);
    for (let i = 0; i < 4; i++) await say(t.api, room.id, a.user.userid, `h${i}`);
    const b = await join(t.api, room.id, uid('late'), { limit: 2 });
    expect(b.eventscursor.events.map((e: { body: string }) => e.body)).toEqual(['h2', 'h3']);
    expect(b.eventscursor.more).toBe(true);
    const older = await t.api.get(`chat/rooms/${room.id}/listpreviousevents?cursor=${b.previouseventscursor}`);
    expect(older.body.data.events.map((e: { body: string }) => e.body)).toEqual(['h0', 'h1']);
    await say(t.api, room.id, a.user.userid, 'h4');
    expect((await drain(t.api, room.id, b.eventscursor.cursor)).events.map((e) => e.body)).toEqual(['h4']);
  });
});
