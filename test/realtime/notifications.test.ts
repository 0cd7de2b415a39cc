import { describe, expect, it } from 'vitest';
import { baseUrl, newApp, uid } from '../helpers/api.js';
import { join, makeRoom, say } from '../chat/helpers.js';
import { userToken } from '../foundation/util.js';
import { connect } from './ws-client.js';

describe('user topics', () => {
  it('push a notification to its user, as the notification list returns it', async () => {
    const { api, appid, token, jwtsecret } = await newApp();
    const alice = uid('alice');
    const conversationid = uid('conv');
    await api.post('comment/conversations', { conversationid, property: 'site', moderation: 'post' });
    const original = await api.post(`comment/conversations/${conversationid}/comments`, { userid: alice, displayname: 'Alice', body: 'original' });
    const client = await connect(baseUrl(), appid, token, await userToken(jwtsecret, { userid: alice }));
    expect(await client.subscribe(`user:${alice}`)).toMatchObject({ type: 'subscribed' });

    const reply = await api.post(`comment/conversations/${conversationid}/comments/${original.body.data.id}`, { userid: uid('bob'), displayname: 'Bob', body: 'a reply' });
    expect(reply.status).toBe(200);
    const frame = await client.next((f) => f.type === 'event');
    expect(frame).toMatchObject({ topic: `user:${alice}`, event: 'notification' });
    const listed = await api.get(`user/users/${alice}/notification/listnotifications?includeread=true`);
    expect(listed.body.data.notifications).toContainEqual(frame.data);
    client.close();
  });

  it("pushes a like's notification while some socket holds its user's topic, again once one holds it after all let go; a like meanwhile is listed", async () => {
    const { api, appid, token, jwtsecret } = await newApp();
    const room = await makeRoom(api, { enableenterandexit: false });
    const alice = (await join(api, room.id, uid('alice'))).user.userid as string;
    const joinFan = async () => (await join(api, room.id)).user.userid as string;
    const [bob, carol, dan] = [await joinFan(), await joinFan(), await joinFan()];
    const goal = (await say(api, room.id, alice, 'goal')).speech;
    const like = async (userid: string) => {
      const res = await api.post(`chat/rooms/${room.id}/events/${goal.id}/react`, { userid, reaction: 'like', reacted: true });
      expect(res.status).toBe(200);
      return res.body.data.id as string;
    };
    const socket = async () => {
      const client = await connect(baseUrl(), appid, token, await userToken(jwtsecret, { userid: alice }));
      expect(await client.subscribe(`user:${alice}`)).toMatchObject({ type: 'subscribed' });
      return client;
    };
    const [first, second] = [await socket(), await socket()];
    first.send({ type: 'unsubscribe', topic: `user:${alice}` });
    await first.next((f) => f.type === 'unsubscribed');
    const bobs = await like(bob);
    expect(await second.next((f) => f.type === 'event')).toMatchObject({ event: 'notification', data: { chateventid: bobs, fromuserid: bob } });
    second.send({ type: 'unsubscribe', topic: `user:${alice}` });
    await second.next((f) => f.type === 'unsubscribed');
    const carols = await like(carol);
    const third = await socket();
    const dans = await like(dan);
    expect(await third.next((f) => f.type === 'event')).toMatchObject({ event: 'notification', data: { chateventid: dans, fromuserid: dan } });
    const listed = await api.get(`user/users/${alice}/notification/listnotifications?includeread=true`);
    expect((listed.body.data.notifications as { chateventid: string }[]).map((n) => n.chateventid).sort()).toEqual([bobs, carols, dans].sort());
    for (const client of [first, second, third]) client.close();
  });
});
