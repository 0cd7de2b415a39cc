import { beforeAll, describe, expect, it } from 'vitest';
import { newApp, uid, type Client } from '../helpers/api.js';
import { newConversation, postComment } from './helpers.js';

let api: Client;
beforeAll(async () => {
  ({ api } = await newApp());
});

const one = (conv: string, id: string) => api.get(`comment/conversations/${conv}/comments/${id}`);
const setDeleted = (conv: string, id: string, query: string) => api.put(`comment/conversations/${conv}/comments/${id}/setdeleted?${query}`);

describe('editing', () => {
  it('changes the body, keeps originalbody, sets edited; author only', async () => {
    const c = await newConversation(api);
    const comment = await postComment(api, c.conversationid, { userid: 'writer', displayname: 'W', body: 'first #one' });
    const res = await api.put(`comment/conversations/${c.conversationid}/comments/${comment.id}`, { userId: 'writer', body: 'second #two @sam' });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ body: 'second #two @sam', originalbody: 'first #one', edited: true, hashtags: ['#two'], mentions: ['@sam'] });
    const twice = await api.put(`comment/conversations/${c.conversationid}/comments/${comment.id}`, { userid: 'writer', body: 'third' });
    expect(twice.body.data).toMatchObject({ body: 'third', originalbody: 'first #one' });
    await postComment(api, c.conversationid, { userid: 'other', displayname: 'O' });
    const other = await api.put(`comment/conversations/${c.conversationid}/comments/${comment.id}`, { userid: 'other', body: 'hijack' });
    expect(other.status).toBe(403);
    expect((await one(c.conversationid, comment.id)).body.data.body).toBe('third');
    expect((await api.put(`comment/conversations/${c.conversationid}/comments/${comment.id}`, { userid: 'writer' })).body.errors.body).toBeDefined();
    const tooLong = await api.put(`comment/conversations/${c.conversationid}/comments/${comment.id}`, { userid: 'writer', body: 'x'.repeat(257) });
    expect(tooLong.status).toBe(400);
    const masked = await api.put(`comment/conversations/${c.conversationid}/comments/${comment.id}`, { userid: 'writer', body: 'oh shit' });
    expect(masked.body.data).toMatchObject({ body: 'oh ****', censored: true });
  });
});

describe('setdeleted', () => {
  it('logically deletes with a placeholder body, keeps replies, and undeletes', async () => {
    const c = await newConversation(api);
    const top = await postComment(api, c.conversationid, { userid: 'owner', displayname: 'Owner', body: 'original text' });
    const reply = await postComment(api, c.conversationid, { body: 'a reply' }, top.id);
    const res = await setDeleted(c.conversationid, top.id, 'userid=owner&deleted=true');
    expect(res.status).toBe(200);
    expect(res.body.data.kind).toBe('delete.comment');
    expect(res.body.data.permanentdelete).toBe(false);
    expect(res.body.data.comment).toMatchObject({ id: top.id, deleted: true, active: false });
    expect(res.body.data.comment.body).not.toBe('original text');
    expect(res.body.data.comment.body).not.toBe('');
    expect((await one(c.conversationid, reply.id)).status).toBe(200);
    expect((await one(c.conversationid, top.id)).body.data.deleted).toBe(true);
    const back = await setDeleted(c.conversationid, top.id, 'userid=owner&deleted=false');
    expect(back.body.data.comment).toMatchObject({ deleted: false, active: true, body: 'original text' });
    expect((await api.get(`comment/conversations/${c.conversationid}`)).body.data.commentcount).toBe(2);
  });

  it('is allowed to the owner or a moderator only', async () => {
    const c = await newConversation(api);
    const top = await postComment(api, c.conversationid, { userid: 'owner2', displayname: 'Owner' });
    await postComment(api, c.conversationid, { userid: 'stranger', displayname: 'S' });
    const denied = await setDeleted(c.conversationid, top.id, 'userid=stranger&deleted=true');
    expect(denied.status).toBe(403);
    expect((await setDeleted(c.conversationid, top.id, `userid=${uid('ghost')}&deleted=true`)).status).toBe(403);
    expect((await one(c.conversationid, top.id)).body.data.deleted).toBe(false);
    const mod = uid('mod');
    await api.post(`user/users/${mod}`, { displayname: 'Mod' });
    await api.post(`user/users/${mod}/role`, { role: 'moderator' });
    const allowed = await setDeleted(c.conversationid, top.id, `userid=${mod}&deleted=true`);
    expect(allowed.status).toBe(200);
    expect(allowed.body.data.comment.deleted).toBe(true);
    expect((await setDeleted(c.conversationid, top.id, 'deleted=true')).body.errors.userid).toBeDefined();
    expect((await setDeleted(c.conversationid, top.id, 'userid=owner2')).body.errors.deleted).toBeDefined();
    expect((await setDeleted(c.conversationid, uid('nope'), 'userid=owner2&deleted=true')).status).toBe(404);
  });

  it('permanentifnoreplies removes a reply-less comment, and its logically deleted parent left childless', async () => {
    const c = await newConversation(api);
    const parent = await postComment(api, c.conversationid, { userid: 'p', displayname: 'P' });
    const child = await postComment(api, c.conversationid, { userid: 'k', displayname: 'K' }, parent.id);
    // With replies, permanentifnoreplies falls back to a logical delete.
    const logical = await setDeleted(c.conversationid, parent.id, 'userid=p&deleted=true&permanentifnoreplies=true');
    expect(logical.body.data.permanentdelete).toBe(false);
    expect((await one(c.conversationid, parent.id)).body.data.deleted).toBe(true);
    const gone = await setDeleted(c.conversationid, child.id, 'userid=k&deleted=true&permanentifnoreplies=true');
    expect(gone.status).toBe(200);
    expect(gone.body.data.permanentdelete).toBe(true);
    expect((await one(c.conversationid, child.id)).status).toBe(404);
    expect((await one(c.conversationid, parent.id)).status).toBe(404);
    expect((await api.get(`comment/conversations/${c.conversationid}`)).body.data.commentcount).toBe(0);
  });

  it('permanentifnoreplies keeps a parent that is not deleted, or still has children', async () => {
    const c = await newConversation(api);
    const parent = await postComment(api, c.conversationid, { userid: 'p', displayname: 'P' });
    const a = await postComment(api, c.conversationid, {}, parent.id);
    const b = await postComment(api, c.conversationid, {}, parent.id);
    await setDeleted(c.conversationid, a.id, 'userid=author&deleted=true&permanentifnoreplies=true');
    const p1 = await one(c.conversationid, parent.id);
    expect(p1.body.data.replycount).toBe(1);
    await setDeleted(c.conversationid, parent.id, 'userid=p&deleted=true');
    await setDeleted(c.conversationid, b.id, 'userid=author&deleted=false&permanentifnoreplies=true');
    expect((await one(c.conversationid, b.id)).status).toBe(200);
    await setDeleted(c.conversationid, b.id, 'userid=author&deleted=true&permanentifnoreplies=true');
    expect((await one(c.conversationid, parent.id)).status).toBe(404);
  });
});

describe('permanent delete', () => {
  it('removes the comment and the replies below it; counts follow', async () => {
    const c = await newConversation(api);
    const top = await postComment(api, c.conversationid);
    const mid = await postComment(api, c.conversationid, {}, top.id);
    const leaf = await postComment(api, c.conversationid, {}, mid.id);
    const sibling = await postComment(api, c.conversationid, {}, top.id);
    const res = await api.delete(`comment/conversations/${c.conversationid}/comments/${mid.id}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ kind: 'delete.comment', permanentdelete: true });
    expect(res.body.data.comment.id).toBe(mid.id);
    expect((await one(c.conversationid, mid.id)).status).toBe(404);
    expect((await one(c.conversationid, leaf.id)).status).toBe(404);
    expect((await one(c.conversationid, sibling.id)).status).toBe(200);
    expect((await one(c.conversationid, top.id)).body.data.replycount).toBe(1);
    expect((await api.get(`comment/conversations/${c.conversationid}`)).body.data.commentcount).toBe(2);
    expect((await api.delete(`comment/conversations/${c.conversationid}/comments/${mid.id}`)).status).toBe(404);
  });
});

describe('global purge', () => {
  it('logically deletes all comments of the user', async () => {
    const c = await newConversation(api);
    const d = await newConversation(api);
    const userid = uid('purged');
    const a = await postComment(api, c.conversationid, { userid, displayname: 'Bad', body: 'spam one' });
    const b = await postComment(api, d.conversationid, { userid, body: 'spam two' });
    const keep = await postComment(api, c.conversationid, { userid: 'nice', displayname: 'Nice' });
    // Prime the cached first page so the purge has to drop it.
    expect((await api.get(`comment/conversations/${c.conversationid}/comments`)).body.data.comments).toHaveLength(2);
    const mod = uid('mod');
    await api.post(`user/users/${mod}`, { displayname: 'Mod' });
    const res = await api.post(`user/users/${userid}/globalpurge`, { byuserid: mod });
    expect(res.status).toBe(200);
    for (const [conv, id] of [
      [c.conversationid, a.id],
      [d.conversationid, b.id],
    ] as const) {
      const got = (await one(conv, id)).body.data;
      expect(got.deleted).toBe(true);
      expect(got.body).not.toMatch(/spam/);
    }
    expect((await one(c.conversationid, keep.id)).body.data.deleted).toBe(false);
    expect((await api.get(`comment/conversations/${c.conversationid}/comments`)).body.data.comments.map((x: { id: string }) => x.id)).toEqual([keep.id]);
  });
});
