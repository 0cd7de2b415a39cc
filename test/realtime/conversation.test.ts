import { describe, expect, it } from 'vitest';
import { baseUrl, newApp, uid } from '../helpers/api.js';
import { connect } from './ws-client.js';

describe('conversation topics', () => {
  it('push a new comment as the comment.comment REST returns', async () => {
    const { api, appid, token } = await newApp();
    const conversationid = uid('conv');
    const created = await api.post('comment/conversations', { conversationid, property: 'site', moderation: 'post' });
    expect(created.status).toBe(200);
    const client = await connect(baseUrl(), appid, token);
    expect(await client.subscribe(`conversation:${conversationid}`)).toMatchObject({ type: 'subscribed' });
    const comment = await api.post(`comment/conversations/${conversationid}/comments`, { userid: 'u1', displayname: 'U One', body: 'first!' });
    expect(comment.status).toBe(200);
    const frame = await client.next((f) => f.type === 'event');
    expect(frame).toMatchObject({ topic: `conversation:${conversationid}`, event: 'comment.created' });
    const rest = await api.get(`comment/conversations/${conversationid}/comments/${comment.body.data.id}`);
    expect(frame.data).toEqual(rest.body.data);
    client.close();
  });
});
