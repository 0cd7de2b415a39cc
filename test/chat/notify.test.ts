import { describe, expect, it } from 'vitest';
import { newApp, uid } from '../helpers/api.js';
import { join, makeRoom, say } from './helpers.js';

interface Notification {
  notificationtype: string;
  eventtype: string;
  fromuserid: string;
  chatroomid: string;
}

/** Published chat events reach the publish hooks with their notify targets; the notifications area shows them. */
describe('chat events notify the users they concern', () => {
  it('notifies the author replied to, quoted and reacted to, and mentioned handles; never the actor', async () => {
    const { api } = await newApp();
    const room = await makeRoom(api, { enableenterandexit: false });
    const handle = uid('star');
    const alice = (await join(api, room.id, uid('alice'), { handle })).user.userid as string;
    const bob = (await join(api, room.id)).user.userid as string;
    const original = (await say(api, room.id, alice, 'first')).speech;
    expect((await api.post(`chat/rooms/${room.id}/events/${original.id}/reply`, { userid: bob, body: 'reply' })).status).toBe(200);
    expect((await api.post(`chat/rooms/${room.id}/events/${original.id}/quote`, { userid: bob, body: 'quote' })).status).toBe(200);
    expect((await api.post(`chat/rooms/${room.id}/events/${original.id}/react`, { userid: bob, reaction: 'like', reacted: true })).status).toBe(200);
    await say(api, room.id, bob, `hey @${handle}`);
    await api.post(`chat/rooms/${room.id}/events/${original.id}/react`, { userid: alice, reaction: 'like', reacted: true });
    let types: string[] = [];
    const deadline = Date.now() + 5000;
    while (types.length < 4 && Date.now() < deadline) {
      const res = await api.get(`user/users/${alice}/notification/listnotifications?limit=50&includeread=true`);
      expect(res.status).toBe(200);
      const list = res.body.data.notifications as Notification[];
      expect(list.every((n) => n.fromuserid === bob && n.chatroomid === room.id)).toBe(true);
      types = list.map((n) => n.eventtype).sort();
      if (types.length < 4) await new Promise((r) => setTimeout(r, 100));
    }
    expect(types).toEqual(['chatquote', 'chatreaction', 'chatreply', 'chatspeech']);
  });

  it("writes a crowd's like notifications with the likes: each fan's like is listed once when it is answered, none for the author's own or a shadowbanned fan's", async () => {
    const { api } = await newApp();
    const room = await makeRoom(api, { enableenterandexit: false });
    const handle = uid('star');
    const alice = (await join(api, room.id, uid('alice'), { handle })).user.userid as string;
    const fans = await Promise.all(Array.from({ length: 12 }, async () => (await join(api, room.id)).user.userid as string));
    const hidden = (await join(api, room.id)).user.userid as string;
    expect((await api.post(`chat/rooms/${room.id}/shadowban`, { userid: hidden, applyeffect: true })).status).toBe(200);
    const goal = (await say(api, room.id, alice, 'goal')).speech;
    // Likes, a mention in the same batch, and the author's own like, all at once.
    const answers = await Promise.all([
      ...[...fans, hidden, alice].map((userid) => api.post(`chat/rooms/${room.id}/events/${goal.id}/react`, { userid, reaction: 'like', reacted: true })),
      api.post(`chat/rooms/${room.id}/command`, { userid: fans[0], command: `well done @${handle}` }),
    ]);
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
    const likeIds = answers.slice(0, fans.length).map((a) => a.body.data.id as string);
    const listed = async () => {
      const res = await api.get(`user/users/${alice}/notification/listnotifications?limit=50&includeread=true`);
      expect(res.status).toBe(200);
      return res.body.data.notifications as (Notification & { chateventid: string })[];
    };
    const expectEachLikeOnce = (list: (Notification & { chateventid: string })[]) => {
      const reactions = list.filter((n) => n.eventtype === 'chatreaction');
      expect(reactions.map((n) => n.fromuserid).sort()).toEqual([...fans].sort());
      expect(reactions.map((n) => n.chateventid).sort()).toEqual([...likeIds].sort());
    };
    expectEachLikeOnce(await listed());
    // The mention goes the notifications' own way, a moment later; by then nothing wrote a like's again.
    const deadline = Date.now() + 5000;
    let list = await listed();
    while (!list.some((n) => n.eventtype === 'chatspeech' && n.fromuserid === fans[0]) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
      list = await listed();
    }
    expect(list.some((n) => n.eventtype === 'chatspeech' && n.fromuserid === fans[0])).toBe(true);
    expectEachLikeOnce(list);
  });

  it('writes the notification of a reaction other than like with it too, and none for one taken back', async () => {
    const { api } = await newApp();
    const room = await makeRoom(api, { enableenterandexit: false });
    const alice = (await join(api, room.id)).user.userid as string;
    const bob = (await join(api, room.id)).user.userid as string;
    const goal = (await say(api, room.id, alice, 'goal')).speech;
    const react = (reaction: string, reacted: boolean) => api.post(`chat/rooms/${room.id}/events/${goal.id}/react`, { userid: bob, reaction, reacted });
    const fire = await react('emoji:fire', true);
    expect(fire.status).toBe(200);
    const reactionsTo = async () =>
      ((await api.get(`user/users/${alice}/notification/listnotifications?limit=50&includeread=true`)).body.data.notifications as (Notification & { chateventid: string })[]).filter(
        (n) => n.eventtype === 'chatreaction',
      );
    expect((await reactionsTo()).map((n) => [n.fromuserid, n.chateventid])).toEqual([[bob, fire.body.data.id]]);
    expect((await react('emoji:fire', false)).status).toBe(200);
    expect((await react('like', true)).status).toBe(200);
    expect((await react('like', false)).status).toBe(200);
    // The like notified; neither taking back did, now or a moment later.
    await new Promise((r) => setTimeout(r, 200));
    expect((await reactionsTo()).length).toBe(2);
  });
});
