import { beforeAll, describe, expect, it } from 'vitest';
import { newApp, uid, type TestApp } from '../helpers/api.js';
import { join, makeRoom, say } from './helpers.js';

let t: TestApp;
let roomid: string;
let alice: string;
let bob: string;
const bodies = (res: { body: { data: { events: { body: string }[] } } }) => res.body.data.events.map((e) => e.body);

beforeAll(async () => {
  t = await newApp();
  const room = await makeRoom(t.api, { enableenterandexit: false });
  roomid = room.id;
  alice = (await join(t.api, roomid, uid('alice'), { handle: uid('Alice') })).user.userid;
  bob = (await join(t.api, roomid, uid('bob'))).user.userid;
  for (let i = 0; i < 6; i++) await say(t.api, roomid, i % 2 === 0 ? alice : bob, `msg ${i} ${i % 2 === 0 ? 'apple' : 'banana'}`);
  await say(t.api, roomid, alice, 'promo', { eventtype: 'announcement' });
});

describe('event listings', () => {
  it('listeventshistory: oldest to newest, newest page first, inactive included, cursor goes older', async () => {
    const first = await t.api.get(`chat/rooms/${roomid}/listeventshistory?limit=4`);
    expect(first.status).toBe(200);
    expect(bodies(first)).toEqual(['msg 3 banana', 'msg 4 apple', 'msg 5 banana', 'promo']);
    expect(first.body.data.more).toBe(true);
    const second = await t.api.get(`chat/rooms/${roomid}/listeventshistory?limit=4&cursor=${first.body.data.cursor}`);
    expect(bodies(second)).toEqual(['msg 0 apple', 'msg 1 banana', 'msg 2 apple']);
    expect(second.body.data.more).toBe(false);
    expect(second.body.data.cursor).toBe('');
    expect((await t.api.get(`chat/rooms/${roomid}/listeventshistory?limit=2001`)).status).toBe(400);
  });

  it('listeventshistory includes logically deleted events; listpreviousevents does not', async () => {
    const room = await makeRoom(t.api, { enableenterandexit: false });
    const u = (await join(t.api, room.id)).user.userid;
    const ev = (await say(t.api, room.id, u, 'hidden later')).speech;
    await say(t.api, room.id, u, 'stays');
    await t.api.put(`chat/rooms/${room.id}/events/${ev.id}/setdeleted?userid=${u}&deleted=true`);
    const history = await t.api.get(`chat/rooms/${room.id}/listeventshistory`);
    expect(history.body.data.events.filter((e: { eventtype: string }) => e.eventtype === 'speech').map((e: { body: string; deleted: boolean }) => [e.body, e.deleted])).toEqual([
      ['hidden later', true],
      ['stays', false],
    ]);
    expect(bodies(await t.api.get(`chat/rooms/${room.id}/listpreviousevents`))).toEqual(['stays']);
  });

  it('listpreviousevents scrolls back through displayable events', async () => {
    const first = await t.api.get(`chat/rooms/${roomid}/listpreviousevents?limit=3`);
    expect(bodies(first)).toEqual(['msg 4 apple', 'msg 5 banana', 'promo']);
    const second = await t.api.get(`chat/rooms/${roomid}/listpreviousevents?limit=3&cursor=${first.body.data.cursor}`);
    expect(bodies(second)).toEqual(['msg 1 banana', 'msg 2 apple', 'msg 3 banana']);
  });

  it('listeventsbytype returns one type; eventtype is required', async () => {
    expect(bodies(await t.api.get(`chat/rooms/${roomid}/listeventsbytype?eventtype=announcement`))).toEqual(['promo']);
    expect(bodies(await t.api.get(`chat/rooms/${roomid}/listeventsbytype?eventType=speech&limit=2`))).toEqual(['msg 4 apple', 'msg 5 banana']);
    const missing = await t.api.get(`chat/rooms/${roomid}/listeventsbytype`);
    expect(missing.status).toBe(400);
    expect(missing.body.errors.eventtype).toBeTruthy();
  });

  it("messagesbyuser lists one user's messages", async () => {
    expect(bodies(await t.api.get(`chat/rooms/${roomid}/messagesbyuser/${bob}`))).toEqual(['msg 1 banana', 'msg 3 banana', 'msg 5 banana']);
  });

  it('eventsbytimestamp returns events around a ts', async () => {
    const all = (await t.api.get(`chat/rooms/${roomid}/listeventshistory`)).body.data.events;
    const pivot = all[3];
    const res = await t.api.get(`chat/rooms/${roomid}/eventsbytimestamp/list/${pivot.ts}?limitolder=2&limitnewer=2`);
    expect(res.status).toBe(200);
    expect(res.body.data.kind).toBe('list.chateventsbytimestamp');
    const ids = res.body.data.events.map((e: { id: string }) => e.id);
    expect(ids).toContain(pivot.id);
    expect(res.body.data.events.every((e: { ts: number }, i: number, xs: { ts: number }[]) => i === 0 || (xs[i - 1] as { ts: number }).ts <= e.ts)).toBe(true);
    expect(res.body.data.itemcount).toBeLessThanOrEqual(4);
    expect((await t.api.get(`chat/rooms/${roomid}/eventsbytimestamp/list/notatime`)).status).toBe(400);
  });

  it('searchevents filters by user, handle, body, type and room, in both directions with paging', async () => {
    const byBody = await t.api.post('chat/searchevents', { roomid, body: 'APPLE' });
    expect(byBody.status).toBe(200);
    expect(byBody.body.data.kind).toBe('list.chatevents');
    expect(bodies(byBody)).toEqual(['msg 4 apple', 'msg 2 apple', 'msg 0 apple']);
    const forward = await t.api.post('chat/searchevents', { fromuserid: bob, direction: 'forward', limit: 2 });
    expect(bodies(forward)).toEqual(['msg 1 banana', 'msg 3 banana']);
    const next = await t.api.post('chat/searchevents', { fromuserid: bob, direction: 'forward', limit: 2, cursor: forward.body.data.cursor });
    expect(bodies(next)).toEqual(['msg 5 banana']);
    const aliceHandle = (await t.api.get(`user/users/${alice}`)).body.data.handle as string;
    const byHandle = await t.api.post('chat/searchevents', { fromhandle: aliceHandle.toUpperCase(), types: ['announcement'] });
    expect(bodies(byHandle)).toEqual(['promo']);
    const bad = await t.api.post('chat/searchevents', { direction: 'sideways' });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.direction).toBeTruthy();
    expect((await t.api.post('chat/searchevents', { roomid: uid('none') })).status).toBe(404);
    expect((await t.api.post('chat/searchevents', { limit: 201 })).status).toBe(400);
  });

  it('GET one event by id', async () => {
    const ev = (await t.api.get(`chat/rooms/${roomid}/listeventshistory?limit=1`)).body.data.events[0];
    const res = await t.api.get(`chat/rooms/${roomid}/events/${ev.id}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ kind: 'chat.event', id: ev.id, body: 'promo' });
    expect((await t.api.get(`chat/rooms/${roomid}/events/${uid('none')}`)).status).toBe(404);
  });
});
