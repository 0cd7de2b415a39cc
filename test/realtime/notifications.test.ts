import { describe, expect, it } from 'vitest';
import { baseUrl, newApp, uid } from '../helpers/api.js';
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
});
