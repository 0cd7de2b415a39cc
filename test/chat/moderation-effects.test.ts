import { describe, expect, it } from 'vitest';
import { bearer, userToken } from '../foundation/util.js';
import { ids, roomFixture, sleep } from './moderation-helpers.js';

describe('bounce', () => {
  it('removes the user, announces it, and bars rejoining and commands until un-bounced', async () => {
    const r = await roomFixture();
    await r.join('alice');
    await r.join('bob');
    expect((await r.room()).inroom).toBe(2);
    const mark = await r.updates();

    const bounced = await r.api.post(`chat/rooms/${r.roomid}/bounce`, { userid: 'bob', bounce: true, announcement: 'Bob was removed.' });
    expect(bounced.status).toBe(200);
    expect(bounced.body.data.kind).toBe('chat.bounceuser');
    expect(bounced.body.data.event).toMatchObject({ eventtype: 'bounce', body: 'Bob was removed.', userid: 'bob' });
    expect(bounced.body.data.room).toMatchObject({ id: r.roomid, inroom: 1, bouncedusers: ['bob'] });

    const participants = await r.api.get(`chat/rooms/${r.roomid}/participants`);
    expect(participants.body.data.participants.map((p: { user: { userid: string } }) => p.user.userid)).toEqual(['alice']);
    expect(ids((await r.updates(mark.cursor)).events)).toContain(bounced.body.data.event.id);

    expect((await r.api.post(`chat/rooms/${r.roomid}/command`, { userid: 'bob', command: 'let me back' })).status).toBe(403);
    expect((await r.api.post(`chat/rooms/${r.roomid}/join`, { userid: 'bob' })).status).toBe(403);

    const unbounced = await r.api.post(`chat/rooms/${r.roomid}/bounce`, { userid: 'bob', bounce: 'false' });
    expect(unbounced.status).toBe(200);
    expect(unbounced.body.data.event).toBeNull();
    expect(unbounced.body.data.room.bouncedusers).toEqual([]);
    await r.join('bob');
    await r.say('bob', 'back again');
  });

  it('validates its body and needs an existing user and room', async () => {
    const r = await roomFixture();
    const noUser = await r.api.post(`chat/rooms/${r.roomid}/bounce`, { bounce: true });
    expect(noUser.status).toBe(400);
    expect(noUser.body.errors).toHaveProperty('userid');
    const badFlag = await r.api.post(`chat/rooms/${r.roomid}/bounce`, { userid: 'x', bounce: 'maybe' });
    expect(badFlag.status).toBe(400);
    expect(badFlag.body.errors).toHaveProperty('bounce');
    expect((await r.api.post(`chat/rooms/${r.roomid}/bounce`, { userid: 'ghost', bounce: true })).status).toBe(404);
    expect((await r.api.post('chat/rooms/noroom/bounce', { userid: 'ghost', bounce: true })).status).toBe(404);
  });
});

describe('room shadow ban', () => {
  it('accepts the user’s messages marked shadowban and hides them from others', async () => {
    const r = await roomFixture();
    await r.join('alice');
    const res = await r.api.post(`chat/rooms/${r.roomid}/shadowban`, { userid: 'alice', applyeffect: true });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ kind: 'chat.room', shadowbannedusers: ['alice'] });
    const hidden = await r.say('alice', 'nobody sees this');
    expect(hidden.shadowban).toBe(true);
    expect(ids((await r.updates()).events)).not.toContain(hidden.id);

    const global = await r.api.get('user/users/alice');
    expect(global.body.data.shadowbanned).toBe(false);

    const lifted = await r.api.post(`chat/rooms/${r.roomid}/shadowban`, { userid: 'alice', applyeffect: false });
    expect(lifted.body.data.shadowbannedusers).toEqual([]);
    expect((await r.say('alice', 'visible')).shadowban).toBe(false);
  });

  it('lifts itself after expireseconds', async () => {
    const r = await roomFixture();
    await r.join('alice');
    const res = await r.api.post(`chat/rooms/${r.roomid}/shadowban`, { userid: 'alice', applyeffect: true, expireseconds: 1 });
    expect(res.body.data.shadowbannedusers).toEqual(['alice']);
    expect((await r.say('alice', 'hidden')).shadowban).toBe(true);
    await sleep(1500);
    expect((await r.say('alice', 'visible')).shadowban).toBe(false);
    const effects = await r.api.get(`chat/rooms/${r.roomid}/usereffects`);
    expect(effects.body.data.usereffects).toEqual([]);
  });

  it('validates expireseconds', async () => {
    const r = await roomFixture();
    await r.join('alice');
    const res = await r.api.post(`chat/rooms/${r.roomid}/shadowban`, { userid: 'alice', applyeffect: true, expireseconds: 'soon' });
    expect(res.status).toBe(400);
    expect(res.body.errors).toHaveProperty('expireseconds');
  });
});

describe('room mute', () => {
  it('refuses a muted user’s commands with 403 until lifted', async () => {
    const r = await roomFixture();
    await r.join('alice');
    expect((await r.api.post(`chat/rooms/${r.roomid}/mute`, { userid: 'alice', applyeffect: true })).status).toBe(200);
    expect((await r.api.post(`chat/rooms/${r.roomid}/command`, { userid: 'alice', command: 'hello?' })).status).toBe(403);
    expect((await r.api.post(`chat/rooms/${r.roomid}/mute`, { userid: 'alice', applyeffect: false })).status).toBe(200);
    await r.say('alice', 'I can talk');
  });

  it('honours expireseconds', async () => {
    const r = await roomFixture();
    await r.join('alice');
    expect((await r.api.post(`chat/rooms/${r.roomid}/mute`, { userid: 'alice', applyeffect: 'true', expireseconds: '1' })).status).toBe(200);
    expect((await r.api.post(`chat/rooms/${r.roomid}/command`, { userid: 'alice', command: 'hello?' })).status).toBe(403);
    await sleep(1500);
    await r.say('alice', 'free again');
  });
});

describe('purge a user’s messages in a room', () => {
  it('removes only that user’s messages and emits a purge event', async () => {
    const r = await roomFixture();
    await r.join('alice');
    await r.join('bob');
    await r.join('mod', 'moderator');
    const mark = await r.updates();
    const a1 = await r.say('alice', 'one');
    const b1 = await r.say('bob', 'stays');
    const a2 = await r.say('alice', 'two');

    const purged = await r.api.post(`chat/rooms/${r.roomid}/commands/purge`, { userid: 'alice', byuserid: 'mod' });
    expect(purged.status).toBe(200);
    expect(purged.body.data).toMatchObject({ kind: 'chat.event', eventtype: 'purge', userid: 'alice' });
    expect(purged.body.message).toBe("The user's 2 messages were purged.");

    const fresh = ids((await r.updates()).events);
    expect(fresh).toContain(b1.id);
    expect(fresh).not.toContain(a1.id);
    expect(fresh).not.toContain(a2.id);
    const polled = await r.updates(mark.cursor);
    expect(polled.events.filter((e) => e.eventtype === 'purge').map((e) => e.userid)).toEqual(['alice']);
  });

  it('needs byuserid naming a known user; the bare app token may purge whatever its role', async () => {
    const r = await roomFixture();
    await r.join('alice');
    await r.join('bob');
    const missing = await r.api.post(`chat/rooms/${r.roomid}/commands/purge`, { userid: 'alice' });
    expect(missing.status).toBe(400);
    expect(missing.body.errors).toHaveProperty('byuserid');
    expect((await r.api.post(`chat/rooms/${r.roomid}/commands/purge`, { userid: 'alice', byuserid: 'ghost' })).status).toBe(404);
    await r.say('alice', 'one');
    const byPlainUser = await r.api.post(`chat/rooms/${r.roomid}/commands/purge`, { userid: 'alice', byuserid: 'bob' });
    expect(byPlainUser.status).toBe(200);
    expect(byPlainUser.body.message).toBe("The user's 1 messages were purged.");
  });

  it('with a user token the caller must be a moderator or admin', async () => {
    const r = await roomFixture();
    await r.join('alice');
    await r.join('bob');
    await r.join('mod', 'moderator');
    await r.say('alice', 'one');
    const asUser = r.api.withHeaders(bearer(await userToken(r.app.jwtsecret, { userid: 'bob', role: 'user' })));
    expect((await asUser.post(`chat/rooms/${r.roomid}/commands/purge`, { userid: 'alice', byuserid: 'bob' })).status).toBe(403);
    expect(ids((await r.updates()).events).length).toBe(1);
    const asMod = r.api.withHeaders(bearer(await userToken(r.app.jwtsecret, { userid: 'mod', role: 'moderator' })));
    const purged = await asMod.post(`chat/rooms/${r.roomid}/commands/purge`, { userid: 'alice', byuserid: 'mod' });
    expect(purged.status).toBe(200);
    expect(purged.body.message).toBe("The user's 1 messages were purged.");
  });
});

describe('room user effects', () => {
  it('lists bans, mutes, shadow bans and bounces with their expiry', async () => {
    const r = await roomFixture();
    for (const u of ['banned', 'muted', 'shadowed', 'bounced', 'clean']) await r.join(u);
    expect((await r.api.post('user/users/banned/ban', { applyeffect: true })).status).toBe(200);
    expect((await r.api.post(`chat/rooms/${r.roomid}/mute`, { userid: 'muted', applyeffect: true, expireseconds: 600 })).status).toBe(200);
    expect((await r.api.post(`chat/rooms/${r.roomid}/shadowban`, { userid: 'shadowed', applyeffect: true })).status).toBe(200);
    expect((await r.api.post(`chat/rooms/${r.roomid}/bounce`, { userid: 'bounced', bounce: true })).status).toBe(200);

    const res = await r.api.get(`chat/rooms/${r.roomid}/usereffects`);
    expect(res.status).toBe(200);
    expect(res.body.data.kind).toBe('chat.list.roomusereffects');
    const effects: { userid: string; effecttype: string; expires: string | null; user: { userid: string } }[] = res.body.data.usereffects;
    const summary = effects.map((e) => `${e.userid}:${e.effecttype}`).sort();
    expect(summary).toEqual(['banned:ban', 'bounced:bounce', 'muted:mute', 'shadowed:shadowban']);
    const mute = effects.find((e) => e.effecttype === 'mute');
    expect(Date.parse(mute?.expires ?? '') - Date.now()).toBeGreaterThan(500_000);
    expect(effects.find((e) => e.effecttype === 'shadowban')?.expires).toBeNull();
    expect(effects.every((e) => e.user.userid === e.userid)).toBe(true);

    const first = await r.api.get(`chat/rooms/${r.roomid}/usereffects?limit=3`);
    expect(first.body.data).toMatchObject({ more: true, itemcount: 3 });
    const rest = await r.api.get(`chat/rooms/${r.roomid}/usereffects?limit=3&cursor=${encodeURIComponent(first.body.data.cursor)}`);
    expect(rest.body.data).toMatchObject({ more: false, cursor: '', itemcount: 1 });
    expect([...first.body.data.usereffects, ...rest.body.data.usereffects]).toEqual(effects);
  });
});

describe('who may moderate', () => {
  it('refuses a plain user token and accepts a moderator token', async () => {
    const r = await roomFixture();
    await r.join('alice');
    await r.join('bob');
    const asUser = r.api.withHeaders(bearer(await userToken(r.app.jwtsecret, { userid: 'bob', role: 'user' })));
    const asMod = r.api.withHeaders(bearer(await userToken(r.app.jwtsecret, { userid: 'mod', role: 'moderator' })));
    for (const [path, body] of [
      ['bounce', { userid: 'alice', bounce: true }],
      ['mute', { userid: 'alice', applyeffect: true }],
      ['shadowban', { userid: 'alice', applyeffect: true }],
    ] as const) {
      expect((await asUser.post(`chat/rooms/${r.roomid}/${path}`, body)).status).toBe(403);
    }
    expect((await asUser.get(`chat/rooms/${r.roomid}/usereffects`)).status).toBe(403);
    expect((await asUser.get('chat/moderation/queues/events')).status).toBe(403);
    expect((await asMod.post(`chat/rooms/${r.roomid}/mute`, { userid: 'alice', applyeffect: true })).status).toBe(200);
    const ev = await r.say('bob', 'hi');
    expect((await asUser.post(`chat/rooms/${r.roomid}/events/${ev.id}/report`, { userid: 'alice', reporttype: 'spam' })).status).toBe(403);
  });
});
