import { afterAll, describe, expect, it } from 'vitest';
import { newApp } from '../helpers/api.js';
import { startReceiver, type Receiver } from '../webhooks/receiver.js';
import { newConversation, postComment } from './helpers.js';

const receivers: Receiver[] = [];
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
});

async function receiver(status: number): Promise<Receiver> {
  const r = await startReceiver(() => status);
  receivers.push(r);
  return r;
}

describe('comments and webhooks', () => {
  it('a refusing prepublish webhook blocks the comment: nothing is stored', async () => {
    const { api } = await newApp();
    const no = await receiver(500);
    await api.post('webhook/hooks', { label: 'gate', url: no.url, enabled: true, type: 'prepublish', events: ['commentpublished'] });
    const c = await newConversation(api);
    const res = await api.post(`comment/conversations/${c.conversationid}/comments`, { userid: 'w', displayname: 'W', body: 'let me through' });
    expect(res.status).toBe(403);
    expect(no.received[0]?.body).toMatchObject({ type: 'commentpublished', data: { body: 'let me through' } });
    expect((await api.get(`comment/conversations/${c.conversationid}`)).body.data.commentcount).toBe(0);
    expect((await api.get(`comment/conversations/${c.conversationid}/comments`)).body.data.comments).toEqual([]);
  });

  it('a comment whose text holds a lone surrogate is refused with 400 naming the field, and reaches no hook', async () => {
    const { api } = await newApp();
    const before = await receiver(200);
    const after = await receiver(200);
    await api.post('webhook/hooks', { label: 'gate', url: before.url, enabled: true, type: 'prepublish', events: ['commentpublished'] });
    await api.post('webhook/hooks', { label: 'after', url: after.url, enabled: true, type: 'postpublish', events: ['commentpublished'] });
    const c = await newConversation(api);
    // JSON.stringify writes the lone surrogate as the escape \ud800: not Unicode, refused as bad input.
    const res = await api.post(`comment/conversations/${c.conversationid}/comments`, { userid: 'w', displayname: 'W', body: 'odd \ud800 text' });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual({ body: 'must be valid Unicode (no lone surrogates)' });
    const fine = await api.post(`comment/conversations/${c.conversationid}/comments`, { userid: 'w', displayname: 'W', body: 'fine text' });
    expect(fine.status).toBe(200);
    const [got] = await after.waitFor(1);
    expect(got?.body).toMatchObject({ type: 'commentpublished', data: { id: fine.body.data.id } });
    expect(before.received).toHaveLength(1);
  });

  it('postpublish webhooks receive published comments, replies and reactions', async () => {
    const { api } = await newApp();
    const yes = await receiver(200);
    await api.post('webhook/hooks', { label: 'after', url: yes.url, enabled: true, type: 'postpublish', events: ['commentpublished', 'commentreply', 'commentreaction'] });
    const c = await newConversation(api);
    const top = await postComment(api, c.conversationid, { userid: 'w', displayname: 'W' });
    await postComment(api, c.conversationid, { userid: 'r', displayname: 'R', body: 'reply' }, top.id);
    await api.post(`comment/conversations/${c.conversationid}/comments/${top.id}/react`, { userid: 'r', reaction: 'like', reacted: true });
    const got = await yes.waitFor(3);
    expect(got.map((r) => r.body.type).sort()).toEqual(['commentpublished', 'commentreaction', 'commentreply']);
    expect(got.find((r) => r.body.type === 'commentreply')?.body.data).toMatchObject({ parentid: top.id, body: 'reply' });
  });
});
