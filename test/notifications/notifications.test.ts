import { beforeAll, describe, expect, it } from 'vitest';
import { newApp, uid, type Client } from '../helpers/api.js';
import { eventually } from '../webhooks/receiver.js';

interface Note {
  id: string;
  notificationtype: string;
  isread: boolean;
  fromuserid: string;
  commentid: string | null;
  chateventid: string | null;
  chatroomid: string | null;
}

let api: Client;
beforeAll(async () => {
  ({ api } = await newApp());
});

const list = async (userid: string, query = '') => (await api.get(`user/users/${userid}/notification/listnotifications${query}`)).body.data;
const notesOf = async (userid: string, query = '') => (await list(userid, query)).notifications as Note[];
const until = (userid: string, count: number, query = '?includeread=true') =>
  eventually(
    () => notesOf(userid, query),
    (n) => n.length >= count,
  );

/** Alice's comment, replied to by Bob mentioning her, replied to by Alice herself, and liked by Bob. */
async function thread() {
  const alice = uid('alice');
  const bob = uid('bob');
  const handle = uid('h');
  const conversationid = uid('conv');
  expect((await api.post('comment/conversations', { conversationid, property: 'test', moderation: 'post' })).status).toBe(200);
  const original = await api.post(`comment/conversations/${conversationid}/comments`, { userid: alice, displayname: 'Alice', handle, body: 'original' });
  expect(original.status).toBe(200);
  const commentid = original.body.data.id as string;
  const reply = await api.post(`comment/conversations/${conversationid}/comments/${commentid}`, { userid: bob, displayname: 'Bob', body: `hi @${handle}` });
  expect(reply.status).toBe(200);
  await api.post(`comment/conversations/${conversationid}/comments/${commentid}`, { userid: alice, body: `note to self @${handle}` });
  const liked = await api.post(`comment/conversations/${conversationid}/comments/${commentid}/react`, { userid: bob, reaction: 'like', reacted: true });
  expect(liked.status).toBe(200);
  return { alice, bob, commentid, replyid: reply.body.data.id as string };
}

describe('notifications from comments', () => {
  it('notifies the author of replies, mentions and reactions, never about their own actions', async () => {
    const { alice, bob, commentid, replyid } = await thread();
    const notes = await until(alice, 3);
    await new Promise((r) => setTimeout(r, 300));
    const all = await notesOf(alice, '?includeread=true');
    expect(all.map((n) => n.notificationtype).sort()).toEqual(['mention', 'reaction', 'reply']);
    expect(notes.every((n) => n.fromuserid === bob && !n.isread)).toBe(true);
    expect(all.find((n) => n.notificationtype === 'reply')?.commentid).toBe(replyid);
    expect(all.find((n) => n.notificationtype === 'reaction')?.commentid).toBe(commentid);
    expect(await notesOf(bob, '?includeread=true')).toEqual([]);
    const page = await list(alice);
    expect(page).toMatchObject({ kind: 'list.usernotifications', itemcount: 3, more: false, cursor: '' });
  });

  it("writes a crowd's comment likes' notifications with the likes: one per fan's like when it is answered, none for the author's own like, a repeat or taking a like back", async () => {
    const author = uid('author');
    const fans = Array.from({ length: 10 }, () => uid('fan'));
    for (const fan of fans) expect((await api.post(`user/users/${fan}`, { displayname: fan })).status).toBe(200);
    const conversationid = uid('conv');
    const customid = uid('custom');
    expect((await api.post('comment/conversations', { conversationid, customid, property: 'test', moderation: 'post' })).status).toBe(200);
    const posted = await api.post(`comment/conversations/${conversationid}/comments`, { userid: author, body: 'what a goal' });
    expect(posted.status).toBe(200);
    const react = (userid: string, reacted = true) => api.post(`comment/conversations/${conversationid}/comments/${posted.body.data.id}/react`, { userid, reaction: 'like', reacted });
    const answers = await Promise.all([...fans, author, fans[0] as string].map((userid) => react(userid)));
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
    expect((await react(fans[1] as string, false)).status).toBe(200);
    const notes = (await list(author, '?includeread=true&limit=50')).notifications as (Note & { eventtype: string; commentconversationid: string; commentconversationcustomid: string })[];
    expect(notes.map((n) => n.fromuserid).sort()).toEqual([...fans].sort());
    for (const n of notes) {
      expect(n).toMatchObject({
        notificationtype: 'reaction',
        eventtype: 'commentreaction',
        commentid: posted.body.data.id,
        commentconversationid: conversationid,
        commentconversationcustomid: customid,
        chateventid: null,
        isread: false,
      });
    }
  });

  it('filters by type, pages, and hides read ones unless includeread', async () => {
    const { alice } = await thread();
    await until(alice, 3);
    const replies = await notesOf(alice, '?filterNotificationTypes=reply,mention');
    expect(replies.map((n) => n.notificationtype).sort()).toEqual(['mention', 'reply']);
    const first = await list(alice, '?limit=2');
    expect(first.itemcount).toBe(2);
    expect(first.more).toBe(true);
    const second = await list(alice, `?limit=2&cursor=${first.cursor}`);
    expect(second.itemcount).toBe(1);
    const ids = [...first.notifications, ...second.notifications].map((n: Note) => n.id);
    expect(new Set(ids).size).toBe(3);

    const target = ids[0] as string;
    const read = await api.put(`user/users/${alice}/notification/notifications/${target}/update?read=true`);
    expect(read.status).toBe(200);
    expect(read.body.data).toMatchObject({ id: target, isread: true });
    expect((await notesOf(alice)).map((n) => n.id)).not.toContain(target);
    expect((await notesOf(alice, '?includeread=true')).map((n) => n.id)).toContain(target);
    const unread = await api.put(`user/users/${alice}/notification/notifications/${target}/update?read=false`);
    expect(unread.body.data.isread).toBe(false);
    expect((await notesOf(alice)).map((n) => n.id)).toContain(target);

    const bad = await api.get(`user/users/${alice}/notification/listnotifications?filterNotificationTypes=gossip`);
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toHaveProperty('filternotificationtypes');
  });

  it("takes the SDKs' filter vocabulary: webhook names per area, chat event type names, repeated; never-notified types match nothing", async () => {
    const { alice } = await thread();
    await until(alice, 3);
    const types = async (query: string) => (await notesOf(alice, `?includeread=true&${query}`)).map((n) => n.notificationtype).sort();
    expect(await types('filterNotificationTypes=commentreply&filterNotificationTypes=commentreaction')).toEqual(['reaction', 'reply']);
    expect(await types('filterNotificationTypes=chatreply&filterNotificationTypes=chatreaction')).toEqual([]);
    // The JS SDK's default filter.
    expect(await types('filterNotificationTypes=speech&filterNotificationTypes=reply&filterNotificationTypes=reaction')).toEqual(['reaction', 'reply']);
    expect(await types('filterNotificationTypes=speech')).toEqual([]);
    expect(await types('filterNotificationTypes=commentmention')).toEqual(['mention']);
    expect(await types('filterNotificationTypes=')).toEqual(['mention', 'reaction', 'reply']);
    const unknown = await api.get(`user/users/${alice}/notification/listnotifications?filterNotificationTypes=reply&filterNotificationTypes=chatgossip`);
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors).toHaveProperty('filternotificationtypes');
  });

  it('deletes one, marks all read, and deletes all', async () => {
    const { alice } = await thread();
    const notes = await until(alice, 3);
    const gone = notes[0]?.id as string;
    const deleted = await api.delete(`user/users/${alice}/notification/notifications/${gone}`);
    expect(deleted.status).toBe(200);
    expect((await api.delete(`user/users/${alice}/notification/notifications/${gone}`)).status).toBe(404);
    expect(await notesOf(alice)).toHaveLength(2);

    const marked = await api.put(`user/users/${alice}/notification/notifications_all/markread`);
    expect(marked.body.data.updatedcount).toBe(2);
    expect(await notesOf(alice)).toHaveLength(0);
    expect(await notesOf(alice, '?includeread=true')).toHaveLength(2);

    const wiped = await api.put(`user/users/${alice}/notification/notifications_all/markread?delete=true`);
    expect(wiped.body.data.deletedcount).toBe(2);
    expect(await notesOf(alice, '?includeread=true')).toHaveLength(0);
  });

  it("answers 404 for a notification that is not the user's", async () => {
    const { alice } = await thread();
    const [note] = await until(alice, 1);
    expect((await api.put(`user/users/someoneelse/notification/notifications/${note?.id}/update?read=true`)).status).toBe(404);
  });
});

describe('notifications from chat', () => {
  it('notifies of a reply to a chat message and marks and deletes it by chat event id', async () => {
    const customid = uid('roomcid');
    const room = (await api.post('chat/rooms', { name: uid('room'), customid })).body.data.id as string;
    const alice = uid('alice');
    const bob = uid('bob');
    await api.post(`chat/rooms/${room}/join`, { userid: alice, displayname: 'Alice' });
    await api.post(`chat/rooms/${room}/join`, { userid: bob, displayname: 'Bob' });
    const said = await api.post(`chat/rooms/${room}/command`, { userid: alice, command: 'question?' });
    expect(said.status).toBe(200);
    const eventid = said.body.data.speech.id as string;
    const reply = await api.post(`chat/rooms/${room}/events/${eventid}/reply`, { userid: bob, body: 'answer' });
    expect(reply.status).toBe(200);
    const [note] = await until(alice, 1, '');
    expect(note).toMatchObject({
      notificationtype: 'reply',
      chatroomid: room,
      chatroomcustomid: customid,
      chateventid: reply.body.data.id,
      fromuserid: bob,
      userid: alice,
      isread: false,
      whenread: null,
      commentconversationid: null,
      commentconversationcustomid: null,
      commentid: null,
    });
    expect(typeof (note as unknown as { ts: number }).ts).toBe('number');
    expect(new Date((note as unknown as { added: string }).added).getTime()).toBe((note as unknown as { ts: number }).ts);

    const byEvent = `user/users/${alice}/notification/notificationsbyid/chateventid/${reply.body.data.id}`;
    const read = await api.put(`${byEvent}/update?read=true`);
    expect(read.status).toBe(200);
    expect(read.body.data.isread).toBe(true);
    expect(Date.now() - new Date(read.body.data.whenread).getTime()).toBeLessThan(60_000);
    expect(await notesOf(alice)).toHaveLength(0);
    expect((await api.delete(byEvent)).status).toBe(200);
    expect(await notesOf(alice, '?includeread=true')).toHaveLength(0);
  });
});
