import { beforeAll, describe, expect, it } from 'vitest';
import { newApp, uid, type TestApp } from '../helpers/api.js';
import { drain, join, makeRoom, say } from './helpers.js';

let t: TestApp;
beforeAll(async () => {
  t = await newApp();
});

async function roomWith(n: number, body: Record<string, unknown> = {}) {
  const room = await makeRoom(t.api, { enableenterandexit: false, ...body });
  const joined = [];
  for (let i = 0; i < n; i++) joined.push(await join(t.api, room.id));
  return { room, users: joined.map((j) => j.user.userid as string), cursor: joined[0]?.eventscursor.cursor as string };
}

describe('commands', () => {
  it('posts speech with the full chat.event and the room', async () => {
    const { room, users } = await roomWith(1);
    const res = await t.api.post(`chat/rooms/${room.id}/command`, { userid: users[0], command: 'Hello #Game @someone', customtype: 't', customfield1: 'f1', customtags: 'x,y' });
    expect(res.status).toBe(200);
    const data = res.body.data;
    expect(data.kind).toBe('chat.executecommand');
    expect(data.op).toBe('speech');
    expect(data.room.id).toBe(room.id);
    expect(data.speech).toMatchObject({
      kind: 'chat.event',
      roomid: room.id,
      eventtype: 'speech',
      body: 'Hello #Game @someone',
      userid: users[0],
      customtype: 't',
      customfield1: 'f1',
      customtags: ['x', 'y'],
      hashtags: ['#Game'],
      active: true,
      deleted: false,
      shadowban: false,
      moderation: 'na',
      likecount: 0,
      replyto: null,
    });
    expect(data.speech.user.userid).toBe(users[0]);
    expect(Math.abs(data.speech.ts - Date.parse(data.speech.added))).toBe(0);
  });

  it('masks profanity with * when the filter is on, and not when off', async () => {
    const on = await roomWith(1);
    const masked = await say(t.api, on.room.id, on.users[0] as string, 'what the fuck');
    expect(masked.speech.body).toBe('what the ****');
    const off = await roomWith(1, { enableprofanityfilter: false });
    expect((await say(t.api, off.room.id, off.users[0] as string, 'what the fuck')).speech.body).toBe('what the fuck');
  });

  it('turns /commands into actions, refused when actions are off', async () => {
    const { room, users } = await roomWith(1);
    const res = await say(t.api, room.id, users[0] as string, '/wave');
    expect(res.op).toBe('action');
    expect(res.action).toMatchObject({ eventtype: 'action', body: 'wave' });
    const off = await roomWith(1, { enableactions: false });
    expect((await t.api.post(`chat/rooms/${off.room.id}/command`, { userid: off.users[0], command: '/wave' })).status).toBe(403);
  });

  it('posts announcement, custom and ad events via eventtype', async () => {
    const { room, users, cursor } = await roomWith(1);
    for (const eventtype of ['announcement', 'custom', 'ad']) {
      const res = await say(t.api, room.id, users[0] as string, `an ${eventtype}`, { eventtype, custompayload: '{"a":1}' });
      expect(res.speech.eventtype).toBe(eventtype);
    }
    expect((await drain(t.api, room.id, cursor)).events.map((e) => e.eventtype)).toEqual(['announcement', 'custom', 'ad']);
    const bad = await t.api.post(`chat/rooms/${room.id}/command`, { userid: users[0], command: 'x', eventtype: 'purge' });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.eventtype).toBeTruthy();
  });

  it("admin commands: only moderators; *purge removes the user's messages and emits purge; *ban and *restore", async () => {
    const { room, users, cursor } = await roomWith(2);
    const [mod, troll] = users as [string, string];
    await say(t.api, room.id, troll, 'spam 1');
    await say(t.api, room.id, troll, 'spam 2');
    const refused = await t.api.post(`chat/rooms/${room.id}/command`, { userid: troll, command: `*purge ${mod}` });
    expect(refused.status).toBe(403);
    await t.api.post(`user/users/${mod}/role`, { role: 'moderator' });
    const purged = await say(t.api, room.id, mod, `*purge ${troll}`);
    expect(purged.op).toBe('purge');
    expect(purged.event).toMatchObject({ eventtype: 'purge', userid: troll });
    expect((await drain(t.api, room.id, cursor)).events.map((e) => e.eventtype)).toContain('purge');
    expect((await t.api.get(`chat/rooms/${room.id}/updates`)).body.data.events).toEqual([]);
    await say(t.api, room.id, mod, `*ban ${troll}`);
    expect((await t.api.get(`user/users/${troll}`)).body.data.banned).toBe(true);
    expect((await t.api.post(`chat/rooms/${room.id}/command`, { userid: troll, command: 'let me' })).status).toBe(403);
    await say(t.api, room.id, mod, `*restore ${troll}`);
    await say(t.api, room.id, troll, 'sorry');
    expect((await t.api.post(`chat/rooms/${room.id}/command`, { userid: mod, command: '*explode now' })).status).toBe(400);
  });

  it('refuses globally banned and muted users with 403; room mute with 403', async () => {
    const { room, users } = await roomWith(3);
    const [banned, muted, roomMuted] = users as [string, string, string];
    await t.api.post(`user/users/${banned}/ban`, { applyeffect: true });
    await t.api.post(`user/users/${muted}/mute`, { applyeffect: true });
    await t.api.post(`chat/rooms/${room.id}/mute`, { userid: roomMuted, applyeffect: true });
    for (const u of users) {
      const res = await t.api.post(`chat/rooms/${room.id}/command`, { userid: u, command: 'hi' });
      expect(res.status).toBe(403);
    }
  });

  it('a room shadow ban stores events with shadowban true', async () => {
    const { room, users } = await roomWith(1);
    expect((await t.api.post(`chat/rooms/${room.id}/shadowban`, { userid: users[0], applyeffect: true })).status).toBe(200);
    expect((await say(t.api, room.id, users[0] as string, 'psst')).speech.shadowban).toBe(true);
  });

  it('400 with the field named for bad bodies, 404 for unknown users', async () => {
    const { room } = await roomWith(1);
    const res = await t.api.post(`chat/rooms/${room.id}/command`, { command: 'hi' });
    expect(res.status).toBe(400);
    expect(res.body.errors.userid).toBeTruthy();
    expect((await t.api.post(`chat/rooms/${room.id}/command`, { userid: uid('ghost'), command: 'hi' })).status).toBe(404);
  });
});

describe('replies, quotes and reactions', () => {
  it('threads replies with parentid and hierarchy, counting replies', async () => {
    const { room, users } = await roomWith(2);
    const root = (await say(t.api, room.id, users[0] as string, 'root')).speech;
    const r1 = await t.api.post(`chat/rooms/${room.id}/events/${root.id}/reply`, { userid: users[1], body: 'first reply' });
    expect(r1.status).toBe(200);
    expect(r1.body.data).toMatchObject({ eventtype: 'reply', parentid: root.id, hierarchy: [root.id] });
    const r2 = await t.api.post(`chat/rooms/${room.id}/events/${r1.body.data.id}/reply`, { userid: users[0], body: 'nested' });
    expect(r2.body.data.hierarchy).toEqual([root.id, r1.body.data.id]);
    expect((await t.api.get(`chat/rooms/${room.id}/events/${root.id}`)).body.data.replycount).toBe(1);
    expect((await t.api.post(`chat/rooms/${room.id}/events/${uid('none')}/reply`, { userid: users[0], body: 'x' })).status).toBe(404);
  });

  it('permanentifnoreplies keeps an event that has replies (a logical delete), and removes a reply without any', async () => {
    const { room, users } = await roomWith(2);
    const root = (await say(t.api, room.id, users[0] as string, 'root')).speech;
    const reply = (await t.api.post(`chat/rooms/${room.id}/events/${root.id}/reply`, { userid: users[1], body: 'a reply' })).body.data;
    const kept = await t.api.put(`chat/rooms/${room.id}/events/${root.id}/setdeleted?userid=${users[0]}&deleted=true&permanentifnoreplies=true`);
    expect(kept.body.data).toMatchObject({ permanentdelete: false, event: { id: root.id, deleted: true } });
    expect((await t.api.get(`chat/rooms/${room.id}/events/${root.id}`)).status).toBe(200);
    const removed = await t.api.put(`chat/rooms/${room.id}/events/${reply.id}/setdeleted?userid=${users[1]}&deleted=true&permanentifnoreplies=true`);
    expect(removed.body.data.permanentdelete).toBe(true);
    expect((await t.api.get(`chat/rooms/${room.id}/events/${reply.id}`)).status).toBe(404);
  });

  it('quotes hold the quoted event in replyto', async () => {
    const { room, users } = await roomWith(2);
    const original = (await say(t.api, room.id, users[0] as string, 'quotable')).speech;
    const res = await t.api.post(`chat/rooms/${room.id}/events/${original.id}/quote`, { userid: users[1], body: 'so true' });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ eventtype: 'quote', body: 'so true' });
    expect(res.body.data.replyto).toMatchObject({ id: original.id, body: 'quotable' });
  });

  it('aggregates reactions with counts and users; reacted:false removes', async () => {
    const { room, users, cursor } = await roomWith(2);
    const [a, b] = users as [string, string];
    const target = (await say(t.api, room.id, a, 'react to me')).speech;
    const react = (userid: string, reaction: string, reacted: unknown) => t.api.post(`chat/rooms/${room.id}/events/${target.id}/react`, { userid, reaction, reacted });
    await react(a, 'like', true);
    await react(b, 'like', 'true');
    const emoji = await react(b, 'emoji:🔥', true);
    expect(emoji.status).toBe(200);
    expect(emoji.body.data.eventtype).toBe('reaction');
    const updated = emoji.body.data.replyto;
    expect(updated.id).toBe(target.id);
    expect(updated.likecount).toBe(2);
    const like = updated.reactions.find((r: { type: string }) => r.type === 'like');
    expect(like.count).toBe(2);
    expect(like.users.map((u: { userid: string }) => u.userid).sort()).toEqual([a, b].sort());
    expect(updated.reactions.find((r: { type: string }) => r.type === 'emoji:🔥').count).toBe(1);
    const removed = await react(a, 'like', false);
    expect(removed.body.data.replyto.likecount).toBe(1);
    // Un-reacting to zero keeps the entry with count 0 and no users (settled from the SDKs).
    const emptied = await react(b, 'emoji:🔥', false);
    expect(emptied.body.data.replyto.reactions.find((r: { type: string }) => r.type === 'emoji:🔥')).toMatchObject({ count: 0, users: [] });
    expect((await t.api.get(`chat/rooms/${room.id}/events/${target.id}`)).body.data.reactions.map((r: { type: string; count: number }) => [r.type, r.count])).toEqual([
      ['like', 1],
      ['emoji:🔥', 0],
    ]);
    const bad = await react(a, 'love', true);
    expect(bad.status).toBe(400);
    expect(bad.body.errors.reaction).toBeTruthy();
    const seen = await drain(t.api, room.id, cursor);
    expect(seen.events.map((e) => e.eventtype)).toEqual(['speech', 'reaction', 'reaction', 'reaction', 'reaction', 'reaction']);
  });

  it('counts concurrent reactions on one event exactly', async () => {
    const { room, users } = await roomWith(8);
    const target = (await say(t.api, room.id, users[0] as string, 'popular')).speech;
    await Promise.all(users.map((u) => t.api.post(`chat/rooms/${room.id}/events/${target.id}/react`, { userid: u, reaction: 'like', reacted: true })));
    expect((await t.api.get(`chat/rooms/${room.id}/events/${target.id}`)).body.data.likecount).toBe(8);
  });
});

describe('editing and deleting', () => {
  it('the owner edits (emits replace), others get 403', async () => {
    const { room, users, cursor } = await roomWith(2);
    const ev = (await say(t.api, room.id, users[0] as string, 'typo')).speech;
    const res = await t.api.put(`chat/rooms/${room.id}/events/${ev.id}`, { userid: users[0], body: 'fixed' });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: ev.id, body: 'fixed', edited: true });
    expect((await t.api.put(`chat/rooms/${room.id}/events/${ev.id}`, { userid: users[1], body: 'hijack' })).status).toBe(403);
    const seen = await drain(t.api, room.id, cursor);
    expect(seen.events.map((e) => e.eventtype)).toEqual(['speech', 'replace']);
    expect(seen.events[1].replyto).toMatchObject({ id: ev.id, body: 'fixed' });
  });

  it('setdeleted deletes logically (replace) and back; permanentifnoreplies removes (remove)', async () => {
    const { room, users, cursor } = await roomWith(2);
    const ev = (await say(t.api, room.id, users[0] as string, 'oops')).speech;
    const before = await drain(t.api, room.id, cursor);
    const del = await t.api.put(`chat/rooms/${room.id}/events/${ev.id}/setdeleted?userid=${users[0]}&deleted=true`);
    expect(del.status).toBe(200);
    expect(del.body.data).toMatchObject({ permanentdelete: false, event: { id: ev.id, deleted: true } });
    expect((await t.api.get(`chat/rooms/${room.id}/updates`)).body.data.events).toEqual([]);
    expect((await t.api.put(`chat/rooms/${room.id}/events/${ev.id}/setdeleted?userid=${users[1]}&deleted=false`)).status).toBe(403);
    await t.api.put(`chat/rooms/${room.id}/events/${ev.id}/setdeleted?userid=${users[0]}&deleted=false`);
    expect((await t.api.get(`chat/rooms/${room.id}/updates`)).body.data.events.map((e: { id: string }) => e.id)).toEqual([ev.id]);
    const gone = await t.api.put(`chat/rooms/${room.id}/events/${ev.id}/setdeleted?userid=${users[0]}&deleted=true&permanentifnoreplies=true`);
    expect(gone.body.data.permanentdelete).toBe(true);
    expect((await t.api.get(`chat/rooms/${room.id}/events/${ev.id}`)).status).toBe(404);
    const after = await drain(t.api, room.id, before.cursor);
    expect([...before.events, ...after.events].map((e) => e.eventtype)).toEqual(['speech', 'replace', 'replace', 'remove']);
    expect(after.events[2].replyto.id).toBe(ev.id);
    const missing = await t.api.put(`chat/rooms/${room.id}/events/${ev.id}/setdeleted?deleted=true`);
    expect(missing.status).toBe(400);
    expect(missing.body.errors.userid).toBeTruthy();
  });

  it('DELETE removes permanently (owner or moderator) and emits remove', async () => {
    const { room, users, cursor } = await roomWith(3);
    const [owner, other, mod] = users as [string, string, string];
    const a = (await say(t.api, room.id, owner, 'a')).speech;
    const b = (await say(t.api, room.id, owner, 'b')).speech;
    const before = await drain(t.api, room.id, cursor);
    expect((await t.api.delete(`chat/rooms/${room.id}/events/${a.id}?userid=${other}`)).status).toBe(403);
    const res = await t.api.delete(`chat/rooms/${room.id}/events/${a.id}?userid=${owner}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ permanentdelete: true, event: { id: a.id } });
    await t.api.post(`user/users/${mod}/role`, { role: 'moderator' });
    expect((await t.api.delete(`chat/rooms/${room.id}/events/${b.id}?userid=${mod}`)).status).toBe(200);
    const after = await drain(t.api, room.id, before.cursor);
    expect([...before.events, ...after.events].map((e) => e.eventtype)).toEqual(['speech', 'speech', 'remove', 'remove']);
    // A poller that starts after the removal never sees the removed messages.
    expect((await drain(t.api, room.id, cursor)).events.map((e) => e.eventtype)).toEqual(['remove', 'remove']);
    expect((await t.api.get(`chat/rooms/${room.id}/events/${a.id}`)).status).toBe(404);
  });

  it("a global purge removes the user's chat content and emits purge", async () => {
    const { room, users, cursor } = await roomWith(2);
    await say(t.api, room.id, users[0] as string, 'bad');
    await say(t.api, room.id, users[1] as string, 'good');
    const res = await t.api.post(`user/users/${users[0]}/globalpurge`, { byuserid: users[1] });
    expect(res.status).toBe(200);
    expect((await t.api.get(`chat/rooms/${room.id}/updates`)).body.data.events.map((e: { body: string }) => e.body)).toEqual(['good']);
    expect((await drain(t.api, room.id, cursor)).events.at(-1)).toMatchObject({ eventtype: 'purge', userid: users[0] });
  });
});
