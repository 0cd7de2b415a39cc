import { describe, expect, it } from 'vitest';
import { ownServerForSuite } from '../helpers/own-server.js';
import { uid } from '../helpers/api.js';
import { join, makeRoom, say } from '../chat/helpers.js';
import { newConversation, postComment } from '../comments/helpers.js';
import { userToken } from '../foundation/util.js';
import { expectRateLimited, sleep } from './helpers.js';

describe('per-user write limits', () => {
  const own = ownServerForSuite({ RATE_LIMIT_CHAT: '3/2s', RATE_LIMIT_COMMENTS: '2/2s', RATE_LIMIT_VOTES: '2/2s', RATE_LIMIT_REPORTS: '2/2s' });

  it('limits chat per user and room (commands, reactions, replies, quotes share it), then recovers after the window', async () => {
    const room = await makeRoom(own.app.api);
    const alice = uid('alice');
    const bob = uid('bob');
    await join(own.app.api, room.id, alice);
    await join(own.app.api, room.id, bob);
    const first = await say(own.app.api, room.id, alice, 'one');
    const eventid = first.speech.id;
    expect((await own.app.api.post(`chat/rooms/${room.id}/events/${eventid}/react`, { userid: alice, reaction: 'like', reacted: true })).status).toBe(200);
    expect((await own.app.api.post(`chat/rooms/${room.id}/events/${eventid}/reply`, { userid: alice, body: 'a reply' })).status).toBe(200);
    expectRateLimited(await own.app.api.post(`chat/rooms/${room.id}/events/${eventid}/quote`, { userid: alice, body: 'a quote' }), 3);
    expectRateLimited(await own.app.api.post(`chat/rooms/${room.id}/command`, { userid: alice, command: 'four' }), 3);
    // Another user in the room, and the same user in another room, have their own budgets.
    await say(own.app.api, room.id, bob, 'hello');
    const other = await makeRoom(own.app.api);
    await join(own.app.api, other.id, alice);
    await say(own.app.api, other.id, alice, 'elsewhere');
    await sleep(2100);
    await say(own.app.api, room.id, alice, 'after the window');
  });

  it('refuses nothing that was stored: the refused message is not in the room', async () => {
    const room = await makeRoom(own.app.api);
    const user = uid('u');
    await join(own.app.api, room.id, user);
    for (const text of ['m1', 'm2', 'm3']) await say(own.app.api, room.id, user, text);
    expectRateLimited(await own.app.api.post(`chat/rooms/${room.id}/command`, { userid: user, command: 'refused' }), 3);
    const events = await own.app.api.get(`chat/rooms/${room.id}/updates?limit=50`);
    const speech = events.body.data.events.filter((e: { eventtype: string }) => e.eventtype === 'speech');
    expect(speech.map((e: { body: string }) => e.body)).toEqual(['m1', 'm2', 'm3']);
  });

  it('keys a user token on its own user, with the application token alike', async () => {
    const room = await makeRoom(own.app.api);
    const user = uid('u');
    await join(own.app.api, room.id, user);
    const asUser = own.app.api.withHeaders({ authorization: `Bearer ${await userToken(own.app.jwtsecret, { userid: user })}` });
    await say(asUser, room.id, user, 'by jwt 1');
    await say(asUser, room.id, user, 'by jwt 2');
    // The same user through the application token alone shares the budget.
    await say(own.app.api, room.id, user, 'by token');
    expectRateLimited(await asUser.post(`chat/rooms/${room.id}/command`, { userid: user, command: 'over' }), 3);
  });

  it('limits comments per user', async () => {
    const conversation = await newConversation(own.app.api);
    const author = uid('author');
    await postComment(own.app.api, conversation.conversationid, { userid: author });
    await postComment(own.app.api, conversation.conversationid, { userid: author });
    expectRateLimited(await own.app.api.post(`comment/conversations/${conversation.conversationid}/comments`, { userid: author, displayname: 'A', body: 'third' }), 2);
    await postComment(own.app.api, conversation.conversationid, { userid: uid('other') });
    await sleep(2100);
    await postComment(own.app.api, conversation.conversationid, { userid: author });
  });

  it('limits votes per user: comment votes and poll responses share the budget', async () => {
    const conversation = await newConversation(own.app.api);
    const comment = await postComment(own.app.api, conversation.conversationid, { userid: uid('author') });
    const voter = uid('voter');
    await own.app.api.post(`user/users/${voter}`, { displayname: 'Voter' });
    const votePath = `comment/conversations/${conversation.conversationid}/comments/${comment.id}/vote`;
    expect((await own.app.api.post(votePath, { userid: voter, vote: 'up' })).status).toBe(200);
    const pollid = (await own.app.api.post('poll/poll/create', { title: 'Q?' })).body.data.id;
    const choiceid = (await own.app.api.post(`poll/poll/${pollid}/choice`, { choices: [{ title: 'yes' }] })).body.data[0].id;
    const respond = () => own.app.api.post(`poll/poll/${pollid}/response`, { userid: voter, choiceid });
    expect((await respond()).status).toBe(200);
    expectRateLimited(await own.app.api.post(votePath, { userid: voter, vote: 'down' }), 2);
    expectRateLimited(await respond(), 2);
    await sleep(2100);
    expect((await own.app.api.post(votePath, { userid: voter, vote: 'down' })).status).toBe(200);
  });

  it('limits reports per user', async () => {
    const room = await makeRoom(own.app.api);
    const reporter = uid('reporter');
    const speaker = uid('speaker');
    await join(own.app.api, room.id, reporter);
    await join(own.app.api, room.id, speaker);
    const events = await Promise.all(['x', 'y', 'z'].map((t) => say(own.app.api, room.id, speaker, t)));
    const report = (i: number) => own.app.api.post(`chat/rooms/${room.id}/events/${events[i].speech.id}/report`, { userid: reporter, reporttype: 'abuse' });
    expect((await report(0)).status).toBe(200);
    expect((await report(1)).status).toBe(200);
    expectRateLimited(await report(2), 2);
    await sleep(2100);
    expect((await report(2)).status).toBe(200);
  });
});
