// Response bodies are arbitrary JSON; tests read them loosely and assert on the values.
/* eslint-disable @typescript-eslint/no-explicit-any */
import { describe, expect, it } from 'vitest';
import type { Client } from '../helpers/api.js';
import { ownServerForSuite } from '../helpers/own-server.js';
import { connect } from '../realtime/ws-client.js';
import { drain, join, makeRoom, say } from './helpers.js';

/**
 * A crowd at once: joins, exits and likes of one room and one event from hundreds of users
 * concurrently (group-committed), with the counts exact afterwards, repeats idempotent, and every
 * answer and pushed frame of bounded size whatever the crowd. Rate limits off: the crowd is one client.
 */
const own = ownServerForSuite({ RATE_LIMITS: 'off' });
const CROWD = 200;
const SHOWN = 10;
const fans = (prefix: string, n = CROWD) => Array.from({ length: n }, (_, i) => `${prefix}${i}`);
const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

async function all<T>(items: string[], send: (item: string) => Promise<T>): Promise<T[]> {
  return Promise.all(items.map(send));
}

async function like(api: Client, roomid: string, eventid: string, userid: string, reacted = true): Promise<any> {
  const res = await api.post(`chat/rooms/${roomid}/events/${eventid}/react`, { userid, reaction: 'like', reacted });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res;
}

describe('a crowd joining one room', () => {
  it('counts every fan once in inroom, however many join, rejoin and leave at once, and each answer keeps its shape', async () => {
    const { api } = own.app;
    const room = await makeRoom(api, { enableenterandexit: false });
    const crowd = fans('kick');
    // Every fan joins, a quarter of them twice at the same moment.
    const answers = await all([...crowd, ...crowd.slice(0, CROWD / 4)], (userid) => api.post(`chat/rooms/${room.id}/join`, { userid, displayname: `Fan ${userid}` }));
    for (const res of answers) {
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const data = res.body.data;
      expect(data.kind).toBe('chat.joinroom');
      expect(data.user.kind).toBe('app.user');
      expect(data.room.id).toBe(room.id);
      expect(data.room.inroom).toBeGreaterThanOrEqual(1);
      expect(data.room.inroom).toBeLessThanOrEqual(CROWD);
      expect(data.eventscursor.kind).toBe('list.chatevents');
      expect(data.subscription).toMatchObject({ kind: 'chat.subscription', roomid: room.id, userid: data.user.userid });
    }
    expect((await api.get(`chat/rooms/${room.id}`)).body.data.inroom).toBe(CROWD);
    // Half leave, some of them twice at once: each departure counts once.
    const leaving = crowd.slice(0, CROWD / 2);
    const exits = await all([...leaving, ...leaving.slice(0, 20)], (userid) => api.post(`chat/rooms/${room.id}/exit`, { userid }));
    for (const res of exits) expect(res.status).toBe(200);
    expect((await api.get(`chat/rooms/${room.id}`)).body.data.inroom).toBe(CROWD / 2);
    const listed: string[] = [];
    for (let cursor = ''; ; ) {
      const page = (await api.get(`chat/rooms/${room.id}/participants?limit=200&cursor=${cursor}`)).body.data;
      listed.push(...page.participants.map((p: any) => p.user.userid));
      if (!page.more) break;
      cursor = page.cursor;
    }
    expect(listed.sort()).toEqual(crowd.slice(CROWD / 2).sort());
  });

  it('joins by custom id together, and a new fan sees the events posted before they asked', async () => {
    const { api } = own.app;
    const customid = `stadium${Date.now()}`;
    const room = await makeRoom(api, { customid, enableenterandexit: false });
    const host = (await join(api, room.id)).user.userid as string;
    const before = (await say(api, room.id, host, 'kick-off!')).speech;
    const answers = await all(fans('bycustom', 50), (userid) => api.post(`chat/roomsbycustomid/${customid}/join`, { userid }));
    for (const res of answers) {
      expect(res.status).toBe(200);
      expect(res.body.data.eventscursor.events.map((e: any) => e.id)).toContain(before.id);
    }
    expect((await api.get(`chat/rooms/${room.id}`)).body.data.inroom).toBe(51);
  });
});

describe('a crowd liking one event', () => {
  it('counts every like once, repeats and un-likes included, with bounded answers and pushed frames', async () => {
    const { api, appid, token } = own.app;
    const room = await makeRoom(api, { enableenterandexit: false });
    const author = (await join(api, room.id)).user.userid as string;
    const goal = (await say(api, room.id, author, 'GOAL!')).speech;
    const crowd = fans('goal', 300);
    await all(crowd, (userid) => join(api, room.id, userid));
    const socket = await connect(own.server.url, appid, token);
    await socket.subscribe(`room:${room.id}`);

    // Every fan likes at once, fifty of them twice.
    const answers = await all([...crowd, ...crowd.slice(0, 50)], (userid) => like(api, room.id, goal.id, userid));
    for (const res of answers) {
      const target = res.body.data.replyto;
      const likes = target.reactions.find((r: any) => r.type === 'like');
      expect(likes.count).toBeGreaterThanOrEqual(1);
      // The latest N, plus the asking fan where they were pushed out of them.
      expect(likes.users.length).toBeLessThanOrEqual(SHOWN + 1);
      expect(likes.users.map((u: any) => u.userid)).toContain(res.body.data.userid);
      expect(bytes(res.body)).toBeLessThan(4096);
    }
    const event = (await api.get(`chat/rooms/${room.id}/events/${goal.id}`)).body.data;
    expect(event.likecount).toBe(300);
    expect(event.reactions).toEqual([{ type: 'like', count: 300, users: expect.any(Array) }]);
    expect(event.reactions[0].users).toHaveLength(SHOWN);

    const frames = await socket.collect((f) => f.type === 'event' && f.data.eventtype === 'reaction', 350, 20_000);
    for (const f of frames) expect(bytes(f)).toBeLessThan(4096);
    socket.close();

    // Fifty take it back (ten of them twice at once): each un-like counts once.
    await all([...crowd.slice(0, 50), ...crowd.slice(0, 10)], (userid) => like(api, room.id, goal.id, userid, false));
    const after = (await api.get(`chat/rooms/${room.id}/events/${goal.id}`)).body.data;
    expect(after.likecount).toBe(250);
    expect(after.reactions[0].count).toBe(250);

    // The full list, paged: everyone who still likes it, newest first, once each.
    const reactors: string[] = [];
    for (let cursor = ''; ; ) {
      const page = (await api.get(`chat/rooms/${room.id}/events/${goal.id}/reactions?reaction=like&limit=100&cursor=${cursor}`)).body.data;
      expect(page).toMatchObject({ kind: 'list.chatreactionusers', eventid: goal.id, reaction: 'like', count: 250 });
      reactors.push(...page.users.map((u: any) => u.userid));
      if (!page.more) break;
      cursor = page.cursor;
    }
    expect(reactors.slice().sort()).toEqual(crowd.slice(50).sort());
    expect(reactors.slice(0, SHOWN).reverse()).toEqual(after.reactions[0].users.map((u: any) => u.userid));
  });

  /** The crowd joins, then likes the event at once, watched by a subscriber: the answers and the pushed reaction events. */
  async function crowdLikes(roomId: string, eventId: string, crowd: string[]) {
    const { api, appid, token } = own.app;
    await all(crowd, (userid) => join(api, roomId, userid));
    const socket = await connect(own.server.url, appid, token);
    await socket.subscribe(`room:${roomId}`);
    const answers = await all(crowd, (userid) => like(api, roomId, eventId, userid));
    const frames = await socket.collect((f) => f.type === 'event' && f.data.eventtype === 'reaction', crowd.length, 20_000);
    socket.close();
    return { answers, frames };
  }

  it('gives every like of a batch, answered and pushed, the liked event exactly as stored, whatever its text holds', async () => {
    const { api } = own.app;
    const room = await makeRoom(api, { enableenterandexit: false });
    const author = (await join(api, room.id)).user.userid as string;
    // Text that looks like the JSON around it: a "replyto" key, escapes, markup, an emoji.
    const odd = String.raw`"replyto":null,"x":"\u0000" \" </script>` + ' \u{1F389}';
    const goal = (await say(api, room.id, author, odd, { custompayload: JSON.stringify({ replyto: 0, odd }), customtags: ['"replyto":0'] })).speech;
    const crowd = fans('odd', 40);
    const { answers, frames } = await crowdLikes(room.id, goal.id, crowd);
    const { reactions: _answered, likecount: _count, whenmodified: _when, ...unchanging } = goal;
    for (const target of [...answers.map((res) => res.body.data.replyto), ...frames.map((f) => f.data.replyto)]) {
      expect(target).toMatchObject(unchanging);
      expect(Object.keys(target)).toEqual(Object.keys(goal));
    }
    expect(frames.map((f) => f.data.userid).sort()).toEqual(crowd.slice().sort());
  });

  it("answers and pushes each like with the liked event's counts as its own batch left them: growing, ending at the crowd's size", async () => {
    const { api } = own.app;
    const room = await makeRoom(api, { enableenterandexit: false });
    const author = (await join(api, room.id)).user.userid as string;
    const goal = (await say(api, room.id, author, 'GOAL!')).speech;
    const first = (await join(api, room.id)).user.userid as string;
    expect((await like(api, room.id, goal.id, first)).body.data.replyto.likecount).toBe(1);
    const crowd = fans('count', 40);
    const { answers, frames } = await crowdLikes(room.id, goal.id, crowd);
    const counts = (target: any) => [target.likecount, target.reactions.find((r: any) => r.type === 'like').count];
    for (const res of answers) {
      const [likecount, listed] = counts(res.body.data.replyto);
      expect(likecount).toBe(listed);
      expect(likecount).toBeGreaterThan(1);
    }
    const pushed = frames.map((f) => counts(f.data.replyto)[0] as number);
    expect(pushed).toEqual([...pushed].sort((a, b) => a - b));
    expect(pushed.at(-1)).toBe(crowd.length + 1);
    expect(Math.max(...answers.map((res) => res.body.data.replyto.likecount as number))).toBe(crowd.length + 1);
  });

  it('shows a fan their own like even when it is older than the latest listed, and only to them', async () => {
    const { api } = own.app;
    const room = await makeRoom(api, { enableenterandexit: false });
    const author = (await join(api, room.id)).user.userid as string;
    const early = (await join(api, room.id)).user.userid as string;
    const start = (await api.get(`chat/rooms/${room.id}/updates`)).body.data.cursor as string;
    const goal = (await say(api, room.id, author, 'GOAL!')).speech;
    await like(api, room.id, goal.id, early);
    const later = fans('later', 40);
    await all(later, (userid) => join(api, room.id, userid));
    for (const userid of later) await like(api, room.id, goal.id, userid);

    const listedTo = async (query: string) => {
      const event = (await api.get(`chat/rooms/${room.id}/events/${goal.id}${query}`)).body.data;
      return event.reactions[0].users.map((u: any) => u.userid) as string[];
    };
    expect(await listedTo('')).not.toContain(early);
    expect(await listedTo(`?userid=${early}`)).toContain(early);
    expect(await listedTo(`?userid=${later[39]}`)).toContain(later[39]);

    // In updates, the target as each reaction event carries it: the early fan sees theirs in the newest one.
    const polled = async (query: string) => (await api.get(`chat/rooms/${room.id}/updates?cursor=${start}&limit=100${query}`)).body.data.events.at(-1);
    const newest = await polled(`&userid=${early}`);
    expect(newest.replyto.reactions[0].users.map((u: any) => u.userid)).toContain(early);
    expect((await polled('')).replyto.reactions[0].users.map((u: any) => u.userid)).not.toContain(early);
    expect(newest.replyto.reactions[0].count).toBe(41);
  });

  it('refuses a bad reaction with a 400 naming the field, and an unknown event with a 404, writing nothing', async () => {
    const { api } = own.app;
    const room = await makeRoom(api, { enableenterandexit: false });
    const author = (await join(api, room.id)).user.userid as string;
    const goal = (await say(api, room.id, author, 'GOAL!')).speech;
    const bad = await api.post(`chat/rooms/${room.id}/events/${goal.id}/react`, { userid: author, reaction: 'love', reacted: true });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('reaction');
    expect((await api.post(`chat/rooms/${room.id}/events/nosuchevent/react`, { userid: author, reaction: 'like', reacted: true })).status).toBe(404);
    expect((await api.get(`chat/rooms/${room.id}/events/nosuchevent/reactions`)).status).toBe(404);
    expect((await api.get(`chat/rooms/${room.id}/events/${goal.id}/reactions?cursor=notacursor`)).status).toBe(400);
    expect((await api.get(`chat/rooms/${room.id}/events/${goal.id}`)).body.data.reactions).toEqual([]);
  });

  it('refuses with a 404 likes of an event deleted after this node saw it, counting those of the others in the same batches', async () => {
    const { api } = own.app;
    const room = await makeRoom(api, { enableenterandexit: false });
    const author = (await join(api, room.id)).user.userid as string;
    const start = (await api.get(`chat/rooms/${room.id}/updates`)).body.data.cursor as string;
    const kept = (await say(api, room.id, author, 'kept')).speech;
    const doomed = (await say(api, room.id, author, 'doomed')).speech;
    const crowd = fans('doomed', 40);
    await all(crowd, (userid) => join(api, room.id, userid));
    // Both become known targets of this node; then one goes.
    await like(api, room.id, kept.id, crowd[0] as string);
    await like(api, room.id, doomed.id, crowd[0] as string);
    expect((await api.delete(`chat/rooms/${room.id}/events/${doomed.id}?userid=${author}`)).status).toBe(200);

    const react = (eventid: string, userid: string, reacted = true) => api.post(`chat/rooms/${room.id}/events/${eventid}/react`, { userid, reaction: 'like', reacted });
    const answers = await all(crowd.slice(1), (userid) => Promise.all([react(kept.id, userid), react(doomed.id, userid)]));
    for (const [toKept, toDoomed] of answers) {
      expect(toKept.status).toBe(200);
      expect(toDoomed.status).toBe(404);
      expect(JSON.stringify(toDoomed.body)).toContain(doomed.id);
    }
    // An un-like (its own transaction) is refused alike.
    expect((await react(doomed.id, crowd[0] as string, false)).status).toBe(404);

    expect((await api.get(`chat/rooms/${room.id}/events/${kept.id}`)).body.data.likecount).toBe(40);
    const { events } = await drain(api, room.id, start);
    const reactions = events.filter((e: any) => e.eventtype === 'reaction');
    expect(reactions.filter((e: any) => e.replyto?.id === kept.id)).toHaveLength(40);
    // Only the like before the delete reached the feed for the deleted event.
    expect(reactions.filter((e: any) => e.replyto?.id !== kept.id)).toHaveLength(1);
  });
});
