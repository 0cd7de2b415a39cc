import { describe, expect, it } from 'vitest';
import { baseUrl, newApp, uid, type Client } from '../helpers/api.js';
import { userToken } from '../foundation/util.js';
import { connect } from '../realtime/ws-client.js';
import { join, makeRoom, say } from '../chat/helpers.js';
import { eventually } from '../webhooks/receiver.js';

/** Quotes, backslashes, escapes, accents, an emoji and a right-to-left script, as JSON must carry them. */
const BODY = 'Goal! "what" a \\ strike \\n \\u0041 \u00fc\u00df \u{1F389} \u0645\u0631\u062D\u0628\u0627 \t</script>';

const listOf = async (api: Client, userid: string, query = '') => {
  const listed = await api.get(`user/users/${userid}/notification/listnotifications?includeread=true${query}`);
  expect(listed.status, JSON.stringify(listed.body)).toBe(200);
  return listed.body.data;
};
/** Waits until the user has `count` notifications (they are written a tick after the event). */
const notesOf = async (api: Client, userid: string, count: number, query = '') =>
  (
    await eventually(
      () => listOf(api, userid, `&limit=200${query}`),
      (page) => page.notifications.length >= count,
    )
  ).notifications;
const like = async (api: Client, roomid: string, eventid: string, userid: string) => {
  const liked = await api.post(`chat/rooms/${roomid}/events/${eventid}/react`, { userid, reaction: 'like', reacted: true });
  expect(liked.status, JSON.stringify(liked.body)).toBe(200);
  return liked.body.data;
};
const chatEvent = async (api: Client, roomid: string, eventid: string) => (await api.get(`chat/rooms/${roomid}/events/${eventid}`)).body.data;

describe("a notification's payload", () => {
  it('while its item is unchanged, is listed and answered exactly as it was pushed, key order and every character included', async () => {
    const { api, appid, token, jwtsecret } = await newApp();
    const room = await makeRoom(api, { enableenterandexit: false });
    const alice = (await join(api, room.id, uid('alice'), { displayname: 'Al "the" \\ \u00e9' })).user.userid as string;
    const bob = (await join(api, room.id)).user.userid as string;
    const original = (await say(api, room.id, alice, BODY)).speech;
    const client = await connect(baseUrl(), appid, token, await userToken(jwtsecret, { userid: alice }));
    expect(await client.subscribe(`user:${alice}`)).toMatchObject({ type: 'subscribed' });

    await like(api, room.id, original.id, bob);
    const frame = await client.next((f) => f.type === 'event');
    client.close();
    const pushed = JSON.stringify(frame.data.payload);
    expect(frame.data.payload.replyto.body).toBe(BODY);

    const [note] = (await listOf(api, alice)).notifications;
    expect(note.id).toBe(frame.data.id);
    expect(JSON.stringify(note.payload)).toBe(pushed);

    const marked = await api.put(`user/users/${alice}/notification/notifications/${note.id}/update?read=true`);
    expect(marked.status).toBe(200);
    expect(JSON.stringify(marked.body.data.payload)).toBe(pushed);
  });

  it('of a like shows the liked event as it is now: later likes counted, while the push carried the count of its moment', async () => {
    const { api, appid, token, jwtsecret } = await newApp();
    const room = await makeRoom(api, { enableenterandexit: false });
    const alice = (await join(api, room.id)).user.userid as string;
    const fans = [];
    for (let i = 0; i < 3; i++) fans.push((await join(api, room.id)).user.userid as string);
    const goal = (await say(api, room.id, alice, 'goal!')).speech;
    const client = await connect(baseUrl(), appid, token, await userToken(jwtsecret, { userid: alice }));
    expect(await client.subscribe(`user:${alice}`)).toMatchObject({ type: 'subscribed' });

    await like(api, room.id, goal.id, fans[0] as string);
    const first = await client.next((f) => f.type === 'event');
    client.close();
    expect(first.data.payload.replyto.likecount).toBe(1);
    for (const fan of fans.slice(1)) await like(api, room.id, goal.id, fan);

    const notes = await notesOf(api, alice, 3);
    expect(notes.map((n: { fromuserid: string }) => n.fromuserid)).toEqual([...fans].reverse());
    const now = await chatEvent(api, room.id, goal.id);
    expect(now.likecount).toBe(3);
    for (const note of notes) {
      expect(note.payload.replyto.likecount).toBe(3);
      expect(note.payload.replyto.reactions).toEqual(now.reactions);
      // The like itself, as the event endpoint answers it.
      expect(note.payload).toEqual(await chatEvent(api, room.id, note.chateventid));
    }
    const answered = await api.put(`user/users/${alice}/notification/notificationsbyid/chateventid/${first.data.chateventid}/update?read=true`);
    expect(answered.status).toBe(200);
    expect(answered.body.data).toMatchObject({ id: first.data.id, isread: true });
    expect(answered.body.data.payload.replyto.likecount).toBe(3);
  });

  it('is null once the chat event it is about is deleted; the rest of the notification is unchanged', async () => {
    const { api } = await newApp();
    const room = await makeRoom(api, { enableenterandexit: false });
    const alice = (await join(api, room.id)).user.userid as string;
    const bob = (await join(api, room.id)).user.userid as string;
    const question = (await say(api, room.id, alice, 'who scored?')).speech;
    const answer = await api.post(`chat/rooms/${room.id}/events/${question.id}/reply`, { userid: bob, body: 'the keeper' });
    expect(answer.status).toBe(200);
    const replyid = answer.body.data.id as string;
    const [before] = await notesOf(api, alice, 1);
    expect(before).toMatchObject({ notificationtype: 'reply', chateventid: replyid, fromuserid: bob });
    expect(before.payload.id).toBe(replyid);

    const deleted = await api.delete(`chat/rooms/${room.id}/events/${replyid}?userid=${bob}`);
    expect(deleted.status, JSON.stringify(deleted.body)).toBe(200);
    const [after] = (await listOf(api, alice)).notifications;
    expect(after).toEqual({ ...before, payload: null });

    const removed = await api.delete(`user/users/${alice}/notification/notificationsbyid/chateventid/${replyid}`);
    expect(removed.status).toBe(200);
    expect(removed.body.data).toMatchObject({ deletedcount: 1, notification: { ...before, payload: null } });
  });

  it('of a comment notification is the comment as the comments API answers it now, null once it is deleted', async () => {
    const { api } = await newApp();
    const alice = uid('alice');
    const bob = uid('bob');
    const conversationid = uid('conv');
    expect((await api.post('comment/conversations', { conversationid, property: 'test', moderation: 'post' })).status).toBe(200);
    const comments = `comment/conversations/${conversationid}/comments`;
    const original = (await api.post(comments, { userid: alice, displayname: 'Alice', body: 'original' })).body.data;
    const reply = (await api.post(`${comments}/${original.id}`, { userid: bob, displayname: 'Bob', body: 'a reply' })).body.data;
    expect((await api.post(`${comments}/${original.id}/react`, { userid: bob, reaction: 'like', reacted: true })).status).toBe(200);
    const carol = uid('carol');
    expect((await api.post(comments, { userid: carol, displayname: 'Carol', body: 'me too' })).status).toBe(200);
    expect((await api.post(`${comments}/${original.id}/react`, { userid: carol, reaction: 'like', reacted: true })).status).toBe(200);

    const notes = await notesOf(api, alice, 3);
    const byType = (type: string) => notes.filter((n: { notificationtype: string }) => n.notificationtype === type);
    const [replied] = byType('reply');
    expect(replied).toMatchObject({ commentid: reply.id, commentconversationid: conversationid, chateventid: null });
    expect(replied.payload).toEqual((await api.get(`${comments}/${reply.id}`)).body.data);
    const liked = (await api.get(`${comments}/${original.id}`)).body.data;
    expect(liked.reactions[0].count).toBe(2);
    for (const note of byType('reaction')) expect(note.payload).toEqual(liked);

    expect((await api.delete(`${comments}/${reply.id}?userid=${bob}`)).status).toBe(200);
    const after = (await listOf(api, alice)).notifications.find((n: { id: string }) => n.id === replied.id);
    expect(after).toEqual({ ...replied, payload: null });
  });

  it('of every notification of a long page is its own item, chat and comment notifications mixed', async () => {
    const { api } = await newApp();
    // Three rooms and a replier per reply: the likes and replies stay within the write limits.
    const rooms = [await makeRoom(api, { enableenterandexit: false }), await makeRoom(api, { enableenterandexit: false }), await makeRoom(api, { enableenterandexit: false })];
    const alice = uid('alice');
    const bob = uid('bob');
    for (const room of rooms) for (const userid of [alice, bob]) await join(api, room.id, userid);
    const conversationid = uid('conv');
    expect((await api.post('comment/conversations', { conversationid, property: 'test', moderation: 'post' })).status).toBe(200);
    const comments = `comment/conversations/${conversationid}/comments`;
    const original = (await api.post(comments, { userid: alice, displayname: 'Alice', body: 'original' })).body.data;
    const PER_KIND = 60;
    const messages = new Map<string, string>();
    for (let i = 0; i < PER_KIND; i++) {
      const room = rooms[i % rooms.length].id;
      const message = (await say(api, room, alice, `message ${i}`)).speech;
      messages.set((await like(api, room, message.id, bob)).id, message.id);
      expect((await api.post(`${comments}/${original.id}`, { userid: uid('fan'), displayname: 'Fan', body: `reply ${i}` })).status).toBe(200);
    }

    await notesOf(api, alice, 2 * PER_KIND);
    const first = await listOf(api, alice, '&limit=100');
    expect(first).toMatchObject({ itemcount: 100, more: true });
    const second = await listOf(api, alice, `&limit=100&cursor=${first.cursor}`);
    const notes = [...first.notifications, ...second.notifications];
    expect(notes).toHaveLength(2 * PER_KIND);
    const chat = notes.filter((n) => n.chateventid !== null);
    const replies = notes.filter((n) => n.commentid !== null);
    expect(chat).toHaveLength(PER_KIND);
    expect(replies).toHaveLength(PER_KIND);
    for (const n of chat) {
      expect(n.payload).toMatchObject({ id: n.chateventid, eventtype: 'reaction', body: 'like', userid: bob });
      expect(n.payload.replyto).toMatchObject({ id: messages.get(n.chateventid), likecount: 1, userid: alice });
    }
    for (const n of replies) expect(n.payload).toMatchObject({ id: n.commentid, userid: n.fromuserid, parentid: original.id });
    expect(new Set(replies.map((n) => n.payload.body)).size).toBe(PER_KIND);
    expect(new Set(chat.map((n) => n.payload.replyto.body)).size).toBe(PER_KIND);
  });
});
