import { beforeAll, describe, expect, it } from 'vitest';
import { newApp, uid, type TestApp } from '../helpers/api.js';
import { drain, join, makeRoom, say } from './helpers.js';

let t: TestApp;
beforeAll(async () => {
  t = await newApp();
});

describe('chat rooms', () => {
  it('creates a room with the documented defaults', async () => {
    const res = await t.api.post('chat/rooms', { name: 'Lobby' });
    expect(res.status).toBe(200);
    const room = res.body.data;
    expect(room).toMatchObject({
      kind: 'chat.room',
      appid: t.appid,
      name: 'Lobby',
      moderation: 'post',
      maxreports: 3,
      enableprofanityfilter: true,
      enableenterandexit: false,
      delaymessageseconds: 0,
      open: true,
      enableautoexpiresessions: true,
      inroom: 0,
      customtags: [],
    });
    expect(room.id).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(room.added).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('takes customtags comma-delimited, string booleans and numbers, and roomisopen false', async () => {
    const room = await makeRoom(t.api, { customtags: 'a, b,c', enableActions: 'false', maxReports: '7', roomisopen: false, moderation: 'PRE' });
    expect(room.customtags).toEqual(['a', 'b', 'c']);
    expect(room.enableactions).toBe(false);
    expect(room.maxreports).toBe(7);
    expect(room.open).toBe(false);
    expect(room.moderation).toBe('pre');
  });

  it('refuses a room without a name, and bad fields, with 400 naming the field', async () => {
    const res = await t.api.post('chat/rooms', { description: 'x' });
    expect(res.status).toBe(400);
    expect(res.body.errors.name).toBeTruthy();
    const bad = await t.api.post('chat/rooms', { name: 'x', moderation: 'sometimes', delaymessageseconds: -1 });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.moderation).toBeTruthy();
    expect(bad.body.errors.delaymessageseconds).toBeTruthy();
  });

  it('keeps customid unique per app (409) and finds rooms by customid', async () => {
    const customid = uid('c');
    const room = await makeRoom(t.api, { customid });
    const dup = await t.api.post('chat/rooms', { name: 'again', customid });
    expect(dup.status).toBe(409);
    const other = await newApp();
    expect((await other.api.post('chat/rooms', { name: 'other app', customid })).status).toBe(200);
    const found = await t.api.get(`chat/roomsbycustomid/${customid}`);
    expect(found.body.data.id).toBe(room.id);
    expect((await t.api.get(`chat/roomsbycustomid/${uid('none')}`)).status).toBe(404);
  });

  it("gets a room by id, 404 for unknown ids and for another app's room", async () => {
    const room = await makeRoom(t.api);
    expect((await t.api.get(`chat/rooms/${room.id}`)).body.data.name).toBe(room.name);
    expect((await t.api.get(`chat/rooms/${uid('none')}`)).status).toBe(404);
    const other = await newApp();
    expect((await other.api.get(`chat/rooms/${room.id}`)).status).toBe(404);
  });

  it('lists public rooms with filters and cursor paging', async () => {
    const app = await newApp();
    const tag = uid('f');
    for (let i = 0; i < 5; i++) await makeRoom(app.api, { name: `${tag}-room-${i}`, customid: `${tag}-c${i}` });
    await makeRoom(app.api, { name: `${tag}-secret`, private: true });
    await makeRoom(app.api, { name: 'unrelated' });
    const names: string[] = [];
    let cursor = '';
    for (;;) {
      const res = await app.api.get(`chat/rooms?filterByName=${tag}&limit=2&cursor=${cursor}`);
      expect(res.body.data.kind).toBe('list.chatrooms');
      names.push(...res.body.data.rooms.map((r: { name: string }) => r.name));
      if (!res.body.data.more) {
        expect(res.body.data.cursor).toBe('');
        break;
      }
      cursor = res.body.data.cursor;
    }
    expect(names.sort()).toEqual([0, 1, 2, 3, 4].map((i) => `${tag}-room-${i}`));
    const byCustom = await app.api.get(`chat/rooms?filterbycustomid=${tag}-c3`);
    expect(byCustom.body.data.rooms.map((r: { customid: string }) => r.customid)).toEqual([`${tag}-c3`]);
    const one = byCustom.body.data.rooms[0];
    const byId = await app.api.get(`chat/rooms?FilterById=${one.id}`);
    expect(byId.body.data.rooms.map((r: { id: string }) => r.id)).toEqual([one.id]);
  });

  it('updates a room with the create body, and closing/reopening emits roomclosed/roomopened', async () => {
    const room = await makeRoom(t.api, { enableenterandexit: false });
    const { user, eventscursor } = await join(t.api, room.id);
    const renamed = await t.api.post(`chat/rooms/${room.id}`, { name: 'Renamed', roomisopen: false });
    expect(renamed.status).toBe(200);
    expect(renamed.body.data).toMatchObject({ name: 'Renamed', open: false, maxreports: 3 });
    const refused = await t.api.post(`chat/rooms/${room.id}/command`, { userid: user.userid, command: 'hi' });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toMatch(/closed/);
    await t.api.post(`chat/rooms/${room.id}`, { roomisopen: true });
    await say(t.api, room.id, user.userid, 'back');
    const seen = await drain(t.api, room.id, eventscursor.cursor);
    expect(seen.events.map((e) => e.eventtype)).toEqual(['roomclosed', 'roomopened', 'speech']);
  });

  it('deletes a room with its events', async () => {
    const room = await makeRoom(t.api, { enableenterandexit: false });
    const { user } = await join(t.api, room.id);
    await say(t.api, room.id, user.userid, 'one');
    await say(t.api, room.id, user.userid, 'two');
    const res = await t.api.delete(`chat/rooms/${room.id}`);
    expect(res.status).toBe(200);
    expect(res.body.data.kind).toBe('deleted.room');
    expect(res.body.data.room.id).toBe(room.id);
    expect(res.body.data.deletedeventscount).toBe(2);
    expect((await t.api.get(`chat/rooms/${room.id}`)).status).toBe(404);
    expect((await t.api.get(`chat/user/${user.userid}/subscriptions`)).body.data.subscriptions).toEqual([]);
  });

  it('answers batch details by roomid and customid with the asked entities', async () => {
    const customid = uid('bc');
    const a = await makeRoom(t.api);
    const b = await makeRoom(t.api, { customid });
    await join(t.api, a.id);
    const res = await t.api.get(`chat/rooms/batch/details?roomid=${a.id}&customid=${customid}&entity=numparticipants&entity=room`);
    expect(res.status).toBe(200);
    expect(res.body.data.kind).toBe('chat.room.list.extendeddetails');
    const byId = Object.fromEntries(res.body.data.details.map((d: { roomid: string }) => [d.roomid, d]));
    expect(byId[a.id].numparticipants).toBe(1);
    expect(byId[a.id].inroom).toBe(1);
    expect(byId[b.id].room.customid).toBe(customid);
    await say(t.api, a.id, (await join(t.api, a.id)).user.userid, 'latest');
    const times = await t.api.get(`chat/rooms/batch/details?roomid=${a.id}&entity=lastmessagetime`);
    const [detail] = times.body.data.details;
    expect(detail.mostrecentmessagetime).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(detail.lastmessagetime).toBe(detail.mostrecentmessagetime);
    const none = await t.api.get('chat/rooms/batch/details');
    expect(none.status).toBe(400);
    expect(none.body.message).toBe('You must specify at least one roomid or customid');
  });

  it('resets a room: events gone, user effects removed on request', async () => {
    const room = await makeRoom(t.api, { enableenterandexit: false });
    const a = await join(t.api, room.id);
    const b = await join(t.api, room.id);
    await say(t.api, room.id, a.user.userid, 'x');
    expect((await t.api.post(`chat/rooms/${room.id}/mute`, { userid: b.user.userid, applyeffect: true })).status).toBe(200);
    expect((await t.api.post(`chat/rooms/${room.id}/command`, { userid: b.user.userid, command: 'y' })).status).toBe(403);
    const kept = await t.api.post(`chat/rooms/${room.id}/reset`, {});
    expect(kept.status).toBe(200);
    expect(kept.body.data.deletedevents).toBe(1);
    expect((await t.api.post(`chat/rooms/${room.id}/command`, { userid: b.user.userid, command: 'y' })).status).toBe(403);
    const res = await t.api.post(`chat/rooms/${room.id}/reset`, { removeusereffects: true });
    expect(res.body.data.kind).toBe('delete.conversation');
    expect((await t.api.get(`chat/rooms/${room.id}/updates`)).body.data.events).toEqual([]);
    await say(t.api, room.id, b.user.userid, 'free again');
  });

  it('deletes all events of a room', async () => {
    const room = await makeRoom(t.api, { enableenterandexit: false });
    const { user, eventscursor } = await join(t.api, room.id);
    await say(t.api, room.id, user.userid, 'gone soon');
    const res = await t.api.delete(`chat/rooms/${room.id}/events`);
    expect(res.status).toBe(200);
    expect((await t.api.get(`chat/rooms/${room.id}/listeventshistory`)).body.data.events).toEqual([]);
    await say(t.api, room.id, user.userid, 'after');
    expect((await drain(t.api, room.id, eventscursor.cursor)).events.map((e) => e.body)).toEqual(['after']);
  });

  it('private rooms refuse join until permission is granted', async () => {
    const room = await makeRoom(t.api, { private: true });
    const userid = uid('p');
    const refused = await t.api.post(`chat/rooms/${room.id}/join`, { userid, displayname: 'P' });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toMatch(/private/);
    const grant = await t.api.post(`chat/rooms/${room.id}/permissions/${userid}`, { allow: true });
    expect(grant.status).toBe(200);
    await join(t.api, room.id, userid);
    await t.api.post(`chat/rooms/${room.id}/permissions/${userid}`, { allow: 'false' });
    await t.api.post(`chat/rooms/${room.id}/exit`, { userid });
    expect((await t.api.post(`chat/rooms/${room.id}/join`, { userid })).status).toBe(403);
    const bad = await t.api.post(`chat/rooms/${room.id}/permissions/${userid}`, { allow: 'maybe' });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.allow).toBeTruthy();
  });
});
