import { describe, expect, it } from 'vitest';
import { baseUrl, newApp } from '../helpers/api.js';
import { connect } from '../realtime/ws-client.js';
import { newConversation, postComment } from './helpers.js';

describe('live comment events', () => {
  it('pushes each committed change to subscribers of the conversation, as REST returns the comment', async () => {
    const { api, appid, token } = await newApp();
    const c = await newConversation(api);
    const other = await newConversation(api);
    const client = await connect(baseUrl(), appid, token);
    expect(await client.subscribe(`conversation:${c.conversationid}`)).toEqual({ type: 'subscribed', topic: `conversation:${c.conversationid}` });
    const one = (path: string) => api.get(`comment/conversations/${c.conversationid}/comments/${path}`);
    const event = async (name: string) => {
      const frame = await client.next((f) => f.type === 'event' && f.event === name);
      expect(frame.topic).toBe(`conversation:${c.conversationid}`);
      return frame.data;
    };

    const top = await postComment(api, c.conversationid, { userid: 'live', displayname: 'Live' });
    expect(await event('comment.created')).toEqual((await one(top.id)).body.data);
    const reply = await postComment(api, c.conversationid, { body: 'a reply' }, top.id);
    expect((await event('comment.replied')).id).toBe(reply.id);
    await api.put(`comment/conversations/${c.conversationid}/comments/${top.id}`, { userid: 'live', body: 'edited' });
    expect((await event('comment.edited')).body).toBe('edited');
    await api.post(`comment/conversations/${c.conversationid}/comments/${top.id}/vote`, { userid: 'live', vote: 'up' });
    expect((await event('comment.voted')).votescore).toBe(1);
    await api.post(`comment/conversations/${c.conversationid}/comments/${top.id}/react`, { userid: 'live', reaction: 'like', reacted: true });
    expect((await event('comment.reacted')).likecount).toBe(1);
    await api.put(`comment/conversations/${c.conversationid}/comments/${reply.id}/setdeleted?userid=author&deleted=true`);
    expect(await event('comment.deleted')).toEqual((await one(reply.id)).body.data);
    await api.delete(`comment/conversations/${c.conversationid}/comments/${reply.id}`);
    await client.collect((f) => f.type === 'event' && f.event === 'comment.deleted', 2);

    await postComment(api, other.conversationid);
    await client.settle();
    await new Promise((r) => setTimeout(r, 200));
    expect(client.frames.filter((f) => f.type === 'event')).toHaveLength(7);
    client.close();
  });

  it('pushes a pre-moderated comment only once it is approved', async () => {
    const { api, appid, token } = await newApp();
    const c = await newConversation(api, { moderation: 'pre' });
    const client = await connect(baseUrl(), appid, token);
    await client.subscribe(`conversation:${c.conversationid}`);
    const held = await postComment(api, c.conversationid);
    await new Promise((r) => setTimeout(r, 200));
    expect(client.frames.filter((f) => f.type === 'event')).toHaveLength(0);
    await api.post(`comment/moderation/queues/comments/${held.id}/applydecision`, { approve: true });
    const frame = await client.next((f) => f.type === 'event' && f.event === 'comment.created');
    expect(frame.data).toMatchObject({ id: held.id, active: true, moderation: 'approved' });
    client.close();
  });
});
