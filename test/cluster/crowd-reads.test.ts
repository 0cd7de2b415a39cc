// Response bodies are arbitrary JSON; tests read them loosely and assert on the values.
/* eslint-disable @typescript-eslint/no-explicit-any */
import { describe, expect, it } from 'vitest';
import { uid } from '../helpers/api.js';
import { join, makeRoom, say } from '../chat/helpers.js';
import { newConversation, postComment } from '../comments/helpers.js';
import { twoNodesForSuite } from './two-nodes.js';

/**
 * The reads a crowd shares (room details, the rooms list, updates without a cursor, a user's
 * profile, poll standings, a conversation's first comment page) on one node show a change made through the other node as soon as its write answered:
 * node B has read each before, so a stale shared answer would be there to give.
 */
describe('shared crowd reads over two nodes', () => {
  const nodes = twoNodesForSuite({ redis: true, env: { RATE_LIMITS: 'off' } });
  const onB = async (path: string) => {
    const res = await nodes.b.get(path);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data;
  };
  /** The crowd on B reads at once, so its answers are shared. */
  const crowdOnB = (path: string) => Promise.all(Array.from({ length: 20 }, () => onB(path)));

  it('room details and the rooms list show a room update and a moderation change made on the other node', async () => {
    const customid = uid('custom');
    const room = await makeRoom(nodes.a.api, { enableenterandexit: false, customid });
    const fan = uid('fan');
    await join(nodes.a.api, room.id, fan);
    await crowdOnB(`chat/rooms/${room.id}`);
    await crowdOnB(`chat/roomsbycustomid/${customid}`);
    await crowdOnB('chat/rooms?limit=100');
    expect((await nodes.a.api.post(`chat/rooms/${room.id}`, { name: 'Renamed on A' })).status).toBe(200);
    expect((await onB(`chat/rooms/${room.id}`)).name).toBe('Renamed on A');
    expect((await onB(`chat/roomsbycustomid/${customid}`)).name).toBe('Renamed on A');
    expect((await onB('chat/rooms?limit=100')).rooms.find((r: any) => r.id === room.id).name).toBe('Renamed on A');
    expect((await nodes.a.api.post(`chat/rooms/${room.id}/shadowban`, { userid: fan, applyeffect: true })).status).toBe(200);
    expect((await onB(`chat/rooms/${room.id}`)).shadowbannedusers).toEqual([fan]);
  });

  it('updates without a cursor shows an edit, a new event and a shadow ban made on the other node', async () => {
    const room = await makeRoom(nodes.a.api, { enableenterandexit: false, enableprofanityfilter: false });
    const [host, fan] = [uid('host'), uid('fan')];
    await join(nodes.a.api, room.id, host);
    await join(nodes.a.api, room.id, fan);
    const said = await say(nodes.a.api, room.id, host, 'kick off');
    const bodiesOnB = async (query = '') => (await onB(`chat/rooms/${room.id}/updates${query}`)).events.map((e: any) => e.body);
    for (const page of await crowdOnB(`chat/rooms/${room.id}/updates`)) expect(page.events.map((e: any) => e.body)).toEqual(['kick off']);
    expect((await nodes.a.api.put(`chat/rooms/${room.id}/events/${said.speech.id}`, { userid: host, body: 'kick off!' })).status).toBe(200);
    expect(await bodiesOnB()).toEqual(['kick off!']);
    await say(nodes.a.api, room.id, fan, 'goal');
    expect(await bodiesOnB()).toEqual(['kick off!', 'goal']);
    expect((await nodes.a.api.post(`chat/rooms/${room.id}/shadowban`, { userid: fan, applyeffect: true })).status).toBe(200);
    await say(nodes.a.api, room.id, fan, 'hidden');
    expect(await bodiesOnB()).toEqual(['kick off!', 'goal']);
    expect(await bodiesOnB(`?userid=${fan}`)).toEqual(['kick off!', 'goal', 'hidden']);
  });

  it("a user's profile and the pages that show it on one node show a change made on the other", async () => {
    const room = await makeRoom(nodes.a.api, { enableenterandexit: false });
    const host = uid('host');
    await join(nodes.a.api, room.id, host, { displayname: 'Commentator' });
    await say(nodes.a.api, room.id, host, 'hello');
    await crowdOnB(`user/users/${host}`);
    await crowdOnB(`chat/rooms/${room.id}/updates`);
    expect((await nodes.a.api.post(`user/users/${host}`, { displayname: 'Head Commentator' })).status).toBe(200);
    expect((await onB(`user/users/${host}`)).displayname).toBe('Head Commentator');
    expect((await onB(`chat/rooms/${room.id}/updates`)).events.map((e: any) => e.user.displayname)).toEqual(['Head Commentator']);
  });

  it('poll standings on one node show a vote, a new choice and a reset made on the other', async () => {
    const pollid = (await nodes.a.api.post('poll/poll/create', { title: 'Man of the match' })).body.data.id as string;
    const [keeper] = (await nodes.a.api.post(`poll/poll/${pollid}/choice`, { choices: [{ title: 'Keeper' }] })).body.data.map((c: any) => c.id) as string[];
    const countsOnB = async () => (await onB(`poll/poll/${pollid}/standings`)).choices.map((c: any) => [c.title, c.count]);
    for (const standings of await crowdOnB(`poll/poll/${pollid}/standings`)) expect(standings.totalresponses).toBe(0);
    expect((await nodes.a.api.post(`poll/poll/${pollid}/response`, { userid: uid('fan'), choiceid: keeper })).status).toBe(200);
    expect(await countsOnB()).toEqual([['Keeper', 1]]);
    expect((await nodes.a.api.post(`poll/poll/${pollid}/choice`, { choices: [{ title: 'Striker' }] })).status).toBe(200);
    expect(await countsOnB()).toEqual([
      ['Keeper', 1],
      ['Striker', 0],
    ]);
    expect((await nodes.a.api.put(`poll/poll/${pollid}/reset`, {})).status).toBe(200);
    expect(await countsOnB()).toEqual([
      ['Keeper', 0],
      ['Striker', 0],
    ]);
  });

  it("a conversation's first comment page on one node shows a new comment, an edit and a deletion made on the other", async () => {
    const conversation = await newConversation(nodes.a.api);
    const path = `comment/conversations/${conversation.conversationid}/comments?sort=newest`;
    const first = await postComment(nodes.a.api, conversation.conversationid, { body: 'What a match' });
    const bodiesOnB = async () => (await onB(path)).comments.map((c: any) => c.body);
    for (const page of await crowdOnB(path)) expect(page.comments.map((c: any) => c.body)).toEqual(['What a match']);
    const second = await postComment(nodes.a.api, conversation.conversationid, { body: 'Indeed' });
    expect(await bodiesOnB()).toEqual(['Indeed', 'What a match']);
    expect((await nodes.a.api.put(`comment/conversations/${conversation.conversationid}/comments/${first.id}`, { userid: 'author', body: 'What a game' })).status).toBe(200);
    expect(await bodiesOnB()).toEqual(['Indeed', 'What a game']);
    expect((await nodes.a.api.delete(`comment/conversations/${conversation.conversationid}/comments/${second.id}`)).status).toBe(200);
    expect(await bodiesOnB()).toEqual(['What a game']);
  });
});
