import { beforeAll, describe, expect, it } from 'vitest';
import { newApp, uid, type Client } from '../helpers/api.js';
import { newConversation, postComment } from './helpers.js';

let api: Client;
beforeAll(async () => {
  ({ api } = await newApp());
});

describe('creating comments', () => {
  it('creates a comment with the full comment.comment shape, creating the user', async () => {
    const c = await newConversation(api, { customtags: 'a,b' });
    const userid = uid('u');
    const res = await api.post(`comment/conversations/${c.conversationid}/comments`, {
      userId: userid,
      displayName: 'Ann Lee',
      body: 'Loving #TypeScript with @bob and #node 🎉',
      customType: 'review',
      customPayload: '{"x":1}',
      customTags: ['t1'],
      customField1: 'f1',
      pictureUrl: 'https://pic/x.png',
    });
    expect(res.status).toBe(200);
    const comment = res.body.data;
    expect(comment).toMatchObject({
      kind: 'comment.comment',
      conversationid: c.conversationid,
      commenttype: 'comment',
      userid,
      body: 'Loving #TypeScript with @bob and #node 🎉',
      originalbody: 'Loving #TypeScript with @bob and #node 🎉',
      hashtags: ['#TypeScript', '#node'],
      mentions: ['@bob'],
      customtype: 'review',
      custompayload: '{"x":1}',
      customtags: ['t1'],
      customfield1: 'f1',
      edited: false,
      censored: false,
      deleted: false,
      active: true,
      parentid: '',
      hierarchy: [],
      reactions: [],
      votes: [],
      likecount: 0,
      replycount: 0,
      votecount: 0,
      votescore: 0,
      moderation: 'na',
      reports: [],
    });
    expect(comment.user).toMatchObject({ kind: 'app.user', userid, displayname: 'Ann Lee', handle: 'AnnLee', pictureurl: 'https://pic/x.png' });
    expect(typeof comment.id).toBe('string');
    const user = await api.get(`user/users/${userid}`);
    expect(user.status).toBe(200);
    expect(user.body.data.displayname).toBe('Ann Lee');
    const conv = await api.get(`comment/conversations/${c.conversationid}`);
    expect(conv.body.data.commentcount).toBe(1);
  });

  it('creates a new commenter without a displayname (shown by the handle), and needs userid and body always', async () => {
    const c = await newConversation(api);
    const noName = await api.post(`comment/conversations/${c.conversationid}/comments`, { userid: uid('new'), handle: uid('nh'), body: 'hi' });
    expect(noName.status).toBe(200);
    expect(noName.body.data.user.displayname).toBe(noName.body.data.user.handle);
    const noBody = await api.post(`comment/conversations/${c.conversationid}/comments`, { userid: 'x', displayname: 'X' });
    expect(noBody.status).toBe(400);
    expect(noBody.body.errors.body).toBeDefined();
    const noUser = await api.post(`comment/conversations/${c.conversationid}/comments`, { body: 'hi' });
    expect(noUser.status).toBe(400);
    expect(noUser.body.errors.userid).toBeDefined();
    // An existing user needs no displayname; user fields given update it.
    const userid = uid('u');
    await postComment(api, c.conversationid, { userid, displayname: 'First' });
    const again = await postComment(api, c.conversationid, { userid, displayname: undefined, body: 'second' });
    expect(again.user.displayname).toBe('First');
    const renamed = await postComment(api, c.conversationid, { userid, displayname: 'Second' });
    expect(renamed.user.displayname).toBe('Second');
  });

  it('gives a generated variant when the handle is taken, and returns it', async () => {
    const c = await newConversation(api);
    const handle = uid('h');
    const first = await postComment(api, c.conversationid, { userid: uid('u'), handle });
    expect(first.user.handle).toBe(handle);
    const second = await postComment(api, c.conversationid, { userid: uid('u'), handle });
    expect(second.user.handle).toBe(`${handle}1`);
  });

  it('404s for an unknown conversation', async () => {
    const res = await api.post(`comment/conversations/${uid('none')}/comments`, { userid: 'a', displayname: 'A', body: 'x' });
    expect(res.status).toBe(404);
  });

  it('refuses a body over maxcommentlen with 400 naming body; counts characters, not bytes', async () => {
    const c = await newConversation(api, { maxcommentlen: 5 });
    const long = await api.post(`comment/conversations/${c.conversationid}/comments`, { userid: 'a', displayname: 'A', body: '123456' });
    expect(long.status).toBe(400);
    expect(long.body.errors.body).toBeDefined();
    await postComment(api, c.conversationid, { body: '🎉🎉🎉🎉🎉' });
    const d = await newConversation(api);
    expect((await api.post(`comment/conversations/${d.conversationid}/comments`, { userid: 'a', displayname: 'A', body: 'x'.repeat(257) })).status).toBe(400);
    await postComment(api, d.conversationid, { body: 'x'.repeat(256) });
  });

  it('refuses comments in a closed conversation with 403, except from its owner and moderators', async () => {
    const owner = uid('owner');
    const c = await newConversation(api, { open: false, owneruserid: owner });
    const res = await api.post(`comment/conversations/${c.conversationid}/comments`, { userid: 'a', displayname: 'A', body: 'x' });
    expect(res.status).toBe(403);
    expect(res.body.message).toMatch(/closed/);
    const newcomer = uid('new');
    expect((await api.post(`comment/conversations/${c.conversationid}/comments`, { userid: newcomer, body: 'x' })).status).toBe(403);
    expect((await api.get(`user/users/${newcomer}`)).status).toBe(404);
    expect((await postComment(api, c.conversationid, { userid: owner, body: 'from the owner' })).body).toBe('from the owner');
    const mod = uid('mod');
    expect((await api.post(`user/users/${mod}`, { role: 'moderator' })).status).toBe(200);
    expect((await postComment(api, c.conversationid, { userid: mod, body: 'from a moderator' })).userid).toBe(mod);
    const listed = await api.get(`comment/conversations/${c.conversationid}/comments`);
    expect(listed.body.data.comments.map((x: { userid: string }) => x.userid).sort()).toEqual([owner, mod].sort());
    await api.post('comment/conversations', { conversationid: c.conversationid, property: 'site', moderation: 'post', open: true });
    await postComment(api, c.conversationid);
  });

  it('keeps customid unique within the application (409)', async () => {
    const c = await newConversation(api);
    const d = await newConversation(api);
    const customid = uid('cc');
    await postComment(api, c.conversationid, { customid });
    const dup = await api.post(`comment/conversations/${d.conversationid}/comments`, { userid: 'a', displayname: 'A', body: 'x', customid });
    expect(dup.status).toBe(409);
    expect(dup.body.errors.customid).toBeDefined();
    expect((await api.get(`comment/conversations/${d.conversationid}`)).body.data.commentcount).toBe(0);
  });

  it('refuses a globally banned user with 403', async () => {
    const c = await newConversation(api);
    const userid = uid('banned');
    await postComment(api, c.conversationid, { userid });
    expect((await api.post(`user/users/${userid}/ban`, { applyeffect: true })).status).toBe(200);
    const res = await api.post(`comment/conversations/${c.conversationid}/comments`, { userid, body: 'let me in' });
    expect(res.status).toBe(403);
  });

  it('masks profanity with * by default and marks it censored', async () => {
    const c = await newConversation(api);
    const comment = await postComment(api, c.conversationid, { body: 'what the fuck is this' });
    expect(comment.censored).toBe(true);
    expect(comment.body).toBe('what the **** is this');
    const off = await newConversation(api, { enableprofanityfilter: false });
    const raw = await postComment(api, off.conversationid, { body: 'what the fuck' });
    expect(raw.body).toBe('what the fuck');
    expect(raw.censored).toBe(false);
  });

  it('refuses profanity with 204 in block mode, storing nothing', async () => {
    const c = await newConversation(api, { profanityfiltermode: 'block' });
    const res = await api.post(`comment/conversations/${c.conversationid}/comments`, { userid: 'a', displayname: 'A', body: 'fuck this' });
    expect(res.status).toBe(204);
    const clean = await postComment(api, c.conversationid, { body: 'nice' });
    expect(clean.censored).toBe(false);
    const reply = await api.post(`comment/conversations/${c.conversationid}/comments/${clean.id}`, { userid: 'a', body: 'shit' });
    expect(reply.status).toBe(204);
    const got = await api.get(`comment/conversations/${c.conversationid}`);
    expect(got.body.data.commentcount).toBe(1);
    expect((await api.post('comment/conversations', { conversationid: c.conversationid, property: 'p', moderation: 'post', profanityfiltermode: 'nuke' })).status).toBe(400);
  });

  it('takes an added override', async () => {
    const c = await newConversation(api);
    const comment = await postComment(api, c.conversationid, { added: '2019-05-06T07:08:09.123Z' });
    expect(comment.added).toBe('2019-05-06T07:08:09.123Z');
    const unix = await postComment(api, c.conversationid, { added: 1_600_000_000 });
    expect(unix.added).toBe('2020-09-13T12:26:40.000Z');
    expect((await api.post(`comment/conversations/${c.conversationid}/comments`, { userid: 'a', displayname: 'A', body: 'x', added: 'not a date' })).status).toBe(400);
  });

  it('replies from the path or from replyto, to any depth, with hierarchy root first', async () => {
    const c = await newConversation(api);
    const top = await postComment(api, c.conversationid, { userid: 'parent', displayname: 'P' });
    const r1 = await postComment(api, c.conversationid, { body: 'reply 1' }, top.id);
    expect(r1).toMatchObject({ parentid: top.id, hierarchy: [top.id] });
    const r2 = await postComment(api, c.conversationid, { body: 'reply 2', replyto: r1.id });
    expect(r2).toMatchObject({ parentid: r1.id, hierarchy: [top.id, r1.id] });
    const r3 = await postComment(api, c.conversationid, { body: 'reply 3' }, r2.id);
    expect(r3.hierarchy).toEqual([top.id, r1.id, r2.id]);
    expect((await api.get(`comment/conversations/${c.conversationid}/comments/${top.id}`)).body.data.replycount).toBe(1);
    expect((await api.get(`comment/conversations/${c.conversationid}/comments/${r1.id}`)).body.data.replycount).toBe(1);
    expect((await api.get(`comment/conversations/${c.conversationid}`)).body.data.commentcount).toBe(4);
    // Top-level list holds only top-level comments.
    const list = await api.get(`comment/conversations/${c.conversationid}/comments`);
    expect(list.body.data.comments.map((x: { id: string }) => x.id)).toEqual([top.id]);
    const missing = await api.post(`comment/conversations/${c.conversationid}/comments/${uid('nope')}`, { userid: 'a', displayname: 'A', body: 'x' });
    expect(missing.status).toBe(404);
  });

  it('holds comments of a pre-moderated conversation until approved', async () => {
    const c = await newConversation(api, { moderation: 'pre' });
    const held = await postComment(api, c.conversationid, { body: 'wait for me' });
    expect(held).toMatchObject({ active: false, moderation: 'pending' });
    const visible = await api.get(`comment/conversations/${c.conversationid}/comments`);
    expect(visible.body.data.comments).toEqual([]);
    const inactive = await api.get(`comment/conversations/${c.conversationid}/comments?includeinactive=true`);
    expect(inactive.body.data.comments.map((x: { id: string }) => x.id)).toEqual([held.id]);
    const q = await api.get(`comment/moderation/queues/comments?conversationid=${c.conversationid}`);
    expect(q.status).toBe(200);
    expect(q.body.data.comments.map((x: { id: string }) => x.id)).toEqual([held.id]);
    const approved = await api.post(`comment/moderation/queues/comments/${held.id}/applydecision`, { approve: true });
    expect(approved.status).toBe(200);
    expect(approved.body.data).toMatchObject({ active: true, moderation: 'approved' });
    expect((await api.get(`comment/conversations/${c.conversationid}/comments`)).body.data.comments.map((x: { id: string }) => x.id)).toEqual([held.id]);
    expect((await api.get(`comment/moderation/queues/comments?conversationid=${c.conversationid}`)).body.data.comments).toEqual([]);
  });

  it('GETs one comment, 404 for unknown ids and for ids of another conversation', async () => {
    const c = await newConversation(api);
    const d = await newConversation(api);
    const comment = await postComment(api, c.conversationid);
    const got = await api.get(`comment/conversations/${c.conversationid}/comments/${comment.id}`);
    expect(got.status).toBe(200);
    expect(got.body.data).toEqual(comment);
    expect((await api.get(`comment/conversations/${d.conversationid}/comments/${comment.id}`)).status).toBe(404);
    expect((await api.get(`comment/conversations/${c.conversationid}/comments/${uid('x')}`)).status).toBe(404);
  });
});
