import { describe, expect, it } from 'vitest';
import { uid } from '../helpers/api.js';
import { ids, roomFixture } from './moderation-helpers.js';

const NOT_MODERATABLE = 'The specified event  is not in a moderatable state.';

describe('report a chat message', () => {
  it('requires the reporter and a known report type, naming the field', async () => {
    const r = await roomFixture();
    await r.join('alice');
    const ev = await r.say('alice', 'hello');
    const noUser = await r.api.post(`chat/rooms/${r.roomid}/events/${ev.id}/report`, { reporttype: 'spam' });
    expect(noUser.status).toBe(400);
    expect(noUser.body.errors).toHaveProperty('userid');
    const badType = await r.api.post(`chat/rooms/${r.roomid}/events/${ev.id}/report`, { userid: 'alice', reporttype: 'boring' });
    expect(badType.status).toBe(400);
    expect(badType.body.errors).toHaveProperty('reporttype');
    const missing = await r.api.post(`chat/rooms/${r.roomid}/events/nosuchevent/report`, { userid: 'alice', reporttype: 'spam' });
    expect(missing.status).toBe(404);
  });

  it('refuses reports of a moderator or admin event, and reports by banned or bounced users', async () => {
    const r = await roomFixture();
    await r.join('mod', 'moderator');
    await r.join('boss', 'admin');
    await r.join('bob');
    await r.join('banned');
    await r.join('bounced');
    const byMod = await r.say('mod', 'rules apply');
    const byAdmin = await r.say('boss', 'welcome');
    const plain = await r.say('bob', 'hi');
    expect((await r.api.post(`chat/rooms/${r.roomid}/events/${byMod.id}/report`, { userid: 'bob', reporttype: 'abuse' })).status).toBe(403);
    expect((await r.api.post(`chat/rooms/${r.roomid}/events/${byAdmin.id}/report`, { userid: 'bob', reporttype: 'abuse' })).status).toBe(403);

    expect((await r.api.post('user/users/banned/ban', { applyeffect: true })).status).toBe(200);
    expect((await r.api.post(`chat/rooms/${r.roomid}/events/${plain.id}/report`, { userid: 'banned', reporttype: 'spam' })).status).toBe(403);

    expect((await r.api.post(`chat/rooms/${r.roomid}/bounce`, { userid: 'bounced', bounce: true, announcement: 'out' })).status).toBe(200);
    expect((await r.api.post(`chat/rooms/${r.roomid}/events/${plain.id}/report`, { userid: 'bounced', reporttype: 'spam' })).status).toBe(403);

    const stillThere = await r.api.get(`chat/rooms/${r.roomid}/events/${plain.id}`);
    expect(stillThere.body.data.active).toBe(true);
  });

  it('takes a reported message out of the stream at once and tells pollers', async () => {
    const r = await roomFixture({ maxreports: 3 });
    await r.join('alice');
    await r.join('bob');
    const before = await r.updates();
    const ev = await r.say('alice', 'something rude');
    const keep = await r.say('alice', 'something fine');

    const reported = await r.api.post(`chat/rooms/${r.roomid}/events/${ev.id}/report`, { userid: 'bob', reporttype: 'abuse' });
    expect(reported.status).toBe(200);
    expect(reported.body.data.id).toBe(ev.id);
    expect(reported.body.data.active).toBe(false);
    expect(reported.body.data.reports).toEqual([expect.objectContaining({ userid: 'bob', reason: 'abuse' })]);

    const fresh = await r.updates();
    expect(ids(fresh.events)).toContain(keep.id);
    expect(ids(fresh.events)).not.toContain(ev.id);

    const polled = await r.updates(before.cursor);
    const replace = polled.events.find((e) => e.eventtype === 'replace' && e.replyto?.id === ev.id);
    expect(replace?.replyto.active).toBe(false);
  });

  it('counts each reporter once and queues the message at maxreports', async () => {
    const r = await roomFixture({ maxreports: 2 });
    for (const u of ['alice', 'bob', 'carol']) await r.join(u);
    const ev = await r.say('alice', 'spam spam');
    const report = (userid: string) => r.api.post(`chat/rooms/${r.roomid}/events/${ev.id}/report`, { userid, reporttype: 'spam' });
    const queue = async () => (await r.api.get(`chat/moderation/queues/events?roomId=${r.roomid}`)).body.data;

    expect((await report('bob')).status).toBe(200);
    const again = await report('bob');
    expect(again.status).toBe(200);
    expect(again.body.data.reports).toHaveLength(1);
    expect(again.body.data.moderation).not.toBe('flagged');
    expect(ids((await queue()).events)).not.toContain(ev.id);

    const second = await report('carol');
    expect(second.body.data.reports).toHaveLength(2);
    expect(second.body.data.moderation).toBe('flagged');
    expect(second.body.data.active).toBe(false);

    const listed = await queue();
    expect(listed.kind).toBe('list.chatevents');
    const queued = listed.events.find((e: { id: string }) => e.id === ev.id);
    expect(queued).toMatchObject({ moderation: 'flagged', active: false });
  });

  it('applies decisions: rejected events stay hidden, approved ones come back in updates', async () => {
    const r = await roomFixture({ maxreports: 1 });
    await r.join('alice');
    await r.join('bob');
    const bad = await r.say('alice', 'bad one');
    const good = await r.say('alice', 'misreported');
    for (const ev of [bad, good]) expect((await r.api.post(`chat/rooms/${r.roomid}/events/${ev.id}/report`, { userid: 'bob', reporttype: 'spam' })).status).toBe(200);
    const mark = await r.updates();

    const rejected = await r.api.post(`chat/moderation/queues/events/${bad.id}/applydecision`, { approve: false });
    expect(rejected.status).toBe(200);
    expect(rejected.body.data).toMatchObject({ id: bad.id, active: false });
    const approved = await r.api.post(`chat/moderation/queues/events/${good.id}/applydecision`, { approve: 'true' });
    expect(approved.status).toBe(200);
    expect(approved.body.data).toMatchObject({ id: good.id, active: true });

    const polled = await r.updates(mark.cursor);
    expect(ids(polled.events.filter((e) => e.eventtype === 'speech'))).toEqual([good.id]);
    const fresh = await r.updates();
    expect(ids(fresh.events)).toContain(good.id);
    expect(ids(fresh.events)).not.toContain(bad.id);

    const queue = await r.api.get(`chat/moderation/queues/events?roomid=${r.roomid}`);
    expect(ids(queue.body.data.events)).toEqual([]);

    const twice = await r.api.post(`chat/moderation/queues/events/${bad.id}/applydecision`, { approve: true });
    expect(twice.status).toBe(400);
    expect(twice.body.message).toBe(NOT_MODERATABLE);
  });

  it('refuses a decision on an event that is not queued, and validates approve', async () => {
    const r = await roomFixture();
    await r.join('alice');
    const ev = await r.say('alice', 'normal');
    const res = await r.api.post(`chat/moderation/queues/events/${ev.id}/applydecision`, { approve: true });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe(NOT_MODERATABLE);
    const noApprove = await r.api.post(`chat/moderation/queues/events/${ev.id}/applydecision`, {});
    expect(noApprove.status).toBe(400);
    expect(noApprove.body.errors).toHaveProperty('approve');
    expect((await r.api.post(`chat/moderation/queues/events/${uid('nope')}/applydecision`, { approve: true })).status).toBe(404);
  });
});

describe('reported events that go away', () => {
  it('leave the queue when deleted or purged', async () => {
    const r = await roomFixture({ maxreports: 1 });
    await r.join('alice');
    await r.join('bob');
    await r.join('mod', 'moderator');
    const deleted = await r.say('alice', 'to be deleted');
    const purged = await r.say('alice', 'to be purged');
    for (const ev of [deleted, purged]) expect((await r.api.post(`chat/rooms/${r.roomid}/events/${ev.id}/report`, { userid: 'bob', reporttype: 'spam' })).status).toBe(200);

    expect((await r.api.delete(`chat/rooms/${r.roomid}/events/${deleted.id}`)).status).toBe(200);
    expect((await r.api.post(`chat/rooms/${r.roomid}/commands/purge`, { userid: 'alice', byuserid: 'mod' })).status).toBe(200);
    const queue = await r.api.get(`chat/moderation/queues/events?roomId=${r.roomid}`);
    expect(queue.body.data.events).toEqual([]);
    expect((await r.api.post(`chat/moderation/queues/events/${purged.id}/applydecision`, { approve: true })).status).toBe(404);
  });
});

describe('pre-moderated rooms', () => {
  it('holds new messages in the queue until approved, then delivers them to pollers', async () => {
    const r = await roomFixture({ moderation: 'pre' });
    await r.join('alice');
    const mark = await r.updates();
    const held = await r.say('alice', 'please approve me');
    expect(held.moderation).toBe('pending');

    expect(ids((await r.updates()).events)).not.toContain(held.id);
    const queue = await r.api.get(`chat/moderation/queues/events?roomId=${r.roomid}`);
    expect(ids(queue.body.data.events)).toContain(held.id);

    expect((await r.api.post(`chat/moderation/queues/events/${held.id}/applydecision`, { approve: true })).status).toBe(200);
    const polled = await r.updates(mark.cursor);
    const delivered = polled.events.filter((e) => e.id === held.id);
    expect(delivered).toHaveLength(1);
    expect(delivered[0].active).toBe(true);
    const after = await r.updates(polled.cursor);
    expect(ids(after.events)).not.toContain(held.id);
  });

  it('pages the queue with cursor and limit, and filters by room', async () => {
    const r = await roomFixture({ moderation: 'pre' });
    const other = await roomFixture({ moderation: 'pre' }, {}, r.app);
    await r.join('alice');
    await other.join('alice');
    const held = [await r.say('alice', 'one'), await r.say('alice', 'two'), await r.say('alice', 'three')];
    const elsewhere = await other.say('alice', 'other room');

    const first = await r.api.get(`chat/moderation/queues/events?roomId=${r.roomid}&limit=2`);
    expect(first.body.data.more).toBe(true);
    expect(first.body.data.itemcount).toBe(2);
    const second = await r.api.get(`chat/moderation/queues/events?roomId=${r.roomid}&limit=2&cursor=${encodeURIComponent(first.body.data.cursor)}`);
    expect(second.body.data.more).toBe(false);
    expect([...ids(first.body.data.events), ...ids(second.body.data.events)]).toEqual(ids(held));

    expect(first.body.data.room.id).toBe(r.roomid);
    const all = await r.api.get('chat/moderation/queues/events');
    expect(all.body.data.room).toBeNull();
    expect(ids(all.body.data.events)).toEqual(expect.arrayContaining([...ids(held), elsewhere.id]));
    expect((await r.api.get('chat/moderation/queues/events?limit=0')).status).toBe(400);
  });
});
