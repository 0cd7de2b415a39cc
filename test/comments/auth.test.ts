import { beforeAll, describe, expect, it } from 'vitest';
import { newApp, type TestApp } from '../helpers/api.js';
import { bearer, userToken } from '../foundation/util.js';
import { newConversation, postComment } from './helpers.js';

let app: TestApp;
beforeAll(async () => {
  app = await newApp();
});

describe('who may do what with comments', () => {
  it('refuses requests without the API token', async () => {
    const c = await newConversation(app.api);
    const res = await app.api.withHeaders({ 'x-api-token': 'wrong' }).get(`comment/conversations/${c.conversationid}/comments`);
    expect(res.status).toBe(403);
  });

  it('limits a user token to its own user, and moderation to moderators', async () => {
    const c = await newConversation(app.api);
    const mine = await postComment(app.api, c.conversationid, { userid: 'ann', displayname: 'Ann' });
    const ann = app.api.withHeaders(bearer(await userToken(app.jwtsecret, { userid: 'ann', role: 'user' })));
    const asBob = await ann.post(`comment/conversations/${c.conversationid}/comments`, { userid: 'bob', displayname: 'Bob', body: 'not me' });
    expect(asBob.status).toBe(403);
    expect((await ann.post(`comment/conversations/${c.conversationid}/comments`, { userid: 'ann', body: 'me' })).status).toBe(200);
    expect((await ann.get('comment/moderation/queues/comments')).status).toBe(403);
    expect((await ann.post(`comment/moderation/queues/comments/${mine.id}/applydecision`, { approve: true })).status).toBe(403);
    expect((await ann.post(`comment/conversations/${c.conversationid}/reset`)).status).toBe(403);
    const mod = app.api.withHeaders(bearer(await userToken(app.jwtsecret, { userid: 'mo', role: 'moderator' })));
    expect((await mod.get('comment/moderation/queues/comments')).status).toBe(200);
  });
});
