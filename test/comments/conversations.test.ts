import { beforeAll, describe, expect, it } from 'vitest';
import { newApp, uid, type Client } from '../helpers/api.js';
import { newConversation, postComment } from './helpers.js';

let api: Client;
beforeAll(async () => {
  ({ api } = await newApp());
});

describe('conversations: create or update', () => {
  it('creates with defaults and says Inserted, then updates', async () => {
    const id = uid('conv');
    const created = await api.post('comment/conversations', { conversationId: id, property: 'news', moderation: 'post', title: 'First' });
    expect(created.status).toBe(200);
    expect(created.body.message).toBe('Inserted');
    const c = created.body.data;
    expect(c).toMatchObject({
      kind: 'comment.conversation',
      conversationid: id,
      property: 'news',
      moderation: 'post',
      maxreports: 3,
      maxcommentlen: 256,
      open: true,
      enableprofanityfilter: true,
      profanityfiltermode: 'mask',
      commentcount: 0,
      title: 'First',
    });
    expect(c.added).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

    const updated = await api.post('comment/conversations', { conversationid: id, property: 'news2', moderation: 'pre', maxreports: '5' });
    expect(updated.status).toBe(200);
    expect(updated.body.message).not.toBe('Inserted');
    expect(updated.body.data).toMatchObject({ property: 'news2', moderation: 'pre', maxreports: 5, title: 'First' });
    const got = await api.get(`comment/conversations/${id}`);
    expect(got.body.data).toMatchObject({ property: 'news2', moderation: 'pre', maxreports: 5 });
  });

  it('requires conversationid, property and moderation', async () => {
    for (const missing of ['conversationid', 'property', 'moderation']) {
      const body: Record<string, unknown> = { conversationid: uid('conv'), property: 'p', moderation: 'post' };
      delete body[missing];
      const res = await api.post('comment/conversations', body);
      expect(res.status).toBe(400);
      expect(res.body.errors[missing]).toBeDefined();
    }
    const bad = await api.post('comment/conversations', { conversationid: uid('conv'), property: 'p', moderation: 'sometimes' });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.moderation).toBeDefined();
  });

  it('refuses conversation ids that are not URL-friendly or too long', async () => {
    for (const id of ['a/b', 'a?b', 'a#b', 'a&b', 'a%20b', 'a b', 'tab\there', 'x'.repeat(251)]) {
      const res = await api.post('comment/conversations', { conversationid: id, property: 'p', moderation: 'post' });
      expect(res.status, id).toBe(400);
      expect(res.body.errors.conversationid).toBeDefined();
    }
    const ok = await api.post('comment/conversations', { conversationid: `${uid('c')}-${'x'.repeat(200)}`.slice(0, 250), property: 'p', moderation: 'post' });
    expect(ok.status).toBe(200);
  });

  it('enforces the limits on customid, custom fields and maxcommentlen', async () => {
    const base = { conversationid: uid('conv'), property: 'p', moderation: 'post' };
    expect((await api.post('comment/conversations', { ...base, customid: 'c'.repeat(251) })).body.errors.customid).toBeDefined();
    // 1024 bytes is the limit, not 1024 characters: 513 two-byte characters are too many.
    expect((await api.post('comment/conversations', { ...base, customfield1: 'é'.repeat(513) })).status).toBe(400);
    expect((await api.post('comment/conversations', { ...base, customfield2: 'x'.repeat(1025) })).body.errors.customfield2).toBeDefined();
    expect((await api.post('comment/conversations', { ...base, maxcommentlen: 10485761 })).body.errors.maxcommentlen).toBeDefined();
    const ok = await api.post('comment/conversations', { ...base, customfield1: 'é'.repeat(512), maxcommentlen: 10485760 });
    expect(ok.status).toBe(200);
    expect(ok.body.data.maxcommentlen).toBe(10485760);
  });

  it('does not let a custom field that held a value go back to empty', async () => {
    const c = await newConversation(api, { customfield1: 'kept', custompayload: 'pl' });
    const res = await api.post('comment/conversations', { conversationid: c.conversationid, property: 'site', moderation: 'post', customfield1: '' });
    expect(res.status).toBe(400);
    expect(res.body.errors.customfield1).toBeDefined();
    // A field never set may stay empty; another value is fine.
    const ok = await api.post('comment/conversations', { conversationid: c.conversationid, property: 'site', moderation: 'post', customfield2: '', customfield1: 'changed' });
    expect(ok.status).toBe(200);
    expect(ok.body.data.customfield1).toBe('changed');
  });

  it('renames with replaceconversationid; comments follow and the old id is gone', async () => {
    const c = await newConversation(api);
    const comment = await postComment(api, c.conversationid);
    const newId = uid('renamed');
    const res = await api.post('comment/conversations', { conversationid: c.conversationid, replaceconversationid: newId, property: 'site', moderation: 'post' });
    expect(res.status).toBe(200);
    expect(res.body.data.conversationid).toBe(newId);
    expect((await api.get(`comment/conversations/${c.conversationid}`)).status).toBe(404);
    const got = await api.get(`comment/conversations/${newId}/comments/${comment.id}`);
    expect(got.status).toBe(200);
    expect(got.body.data.conversationid).toBe(newId);
    const list = await api.get(`comment/conversations/${newId}/comments`);
    expect(list.body.data.comments.map((x: { id: string }) => x.id)).toEqual([comment.id]);
    expect(list.body.data.conversation.commentcount).toBe(1);
    // Renaming something that does not exist, or onto a taken id.
    expect((await api.post('comment/conversations', { conversationid: uid('nope'), replaceconversationid: uid('x'), property: 'p', moderation: 'post' })).status).toBe(404);
    const other = await newConversation(api);
    expect((await api.post('comment/conversations', { conversationid: other.conversationid, replaceconversationid: newId, property: 'p', moderation: 'post' })).status).toBe(409);
  });

  it('takes an added override', async () => {
    const c = await newConversation(api, { added: '2020-01-02T03:04:05.000Z' });
    expect(c.added).toBe('2020-01-02T03:04:05.000Z');
  });

  it('gets, finds by customid, 404s on unknown ones', async () => {
    const customid = uid('cust');
    const c = await newConversation(api, { customid });
    expect((await api.get(`comment/conversations/${c.conversationid}`)).body.data.customid).toBe(customid);
    const found = await api.get(`comment/find/conversation/bycustomid?customid=${customid}`);
    expect(found.status).toBe(200);
    expect(found.body.data.conversationid).toBe(c.conversationid);
    expect((await api.get(`comment/find/conversation/bycustomid?customid=${uid('none')}`)).status).toBe(404);
    expect((await api.get(`comment/conversations/${uid('none')}`)).status).toBe(404);
    // customid is a unique key.
    const dup = await api.post('comment/conversations', { conversationid: uid('conv'), property: 'p', moderation: 'post', customid });
    expect(dup.status).toBe(409);
  });

  it('lists by property with paging', async () => {
    const property = uid('prop');
    const ids = [];
    for (let i = 0; i < 5; i++) ids.push((await newConversation(api, { property })).conversationid);
    await newConversation(api, { property: uid('other') });
    const seen: string[] = [];
    let cursor = '';
    do {
      const res = await api.get(`comment/conversations/?propertyid=${property}&limit=2${cursor === '' ? '' : `&cursor=${cursor}`}`);
      expect(res.status).toBe(200);
      expect(res.body.data.kind).toBe('list.commentconversations');
      expect(res.body.data.itemcount).toBeLessThanOrEqual(2);
      seen.push(...res.body.data.conversations.map((c: { conversationid: string }) => c.conversationid));
      cursor = res.body.data.cursor;
    } while (cursor !== '');
    expect(seen.sort()).toEqual([...ids].sort());
  });

  it('returns details in batch with the requested entities', async () => {
    const a = await newConversation(api, { customid: uid('ca') });
    const b = await newConversation(api);
    await postComment(api, b.conversationid);
    await api.post(`comment/conversations/${b.conversationid}/react`, { userid: 'author', reaction: 'like', reacted: true });
    const res = await api.get(`comment/conversations/details/batch?ids=${b.conversationid}&cid=${a.customid}&entities=commentcount&entities=likecount`);
    expect(res.status).toBe(200);
    expect(res.body.data.kind).toBe('list.comment.conversation.details');
    const byId = Object.fromEntries(res.body.data.conversations.map((c: { conversationid: string }) => [c.conversationid, c]));
    expect(Object.keys(byId).sort()).toEqual([a.conversationid, b.conversationid].sort());
    expect(byId[b.conversationid]).toMatchObject({ commentcount: 1, likecount: 1 });
    expect(byId[b.conversationid].reactions).toBeUndefined();
    const none = await api.get('comment/conversations/details/batch');
    expect(none.status).toBe(400);
    const badEntity = await api.get(`comment/conversations/details/batch?ids=${a.conversationid}&entities=bogus`);
    expect(badEntity.status).toBe(400);
    expect(badEntity.body.errors.entities).toBeDefined();
  });

  it('takes reactions to the conversation itself, with or without a trailing slash', async () => {
    const c = await newConversation(api);
    await postComment(api, c.conversationid, { userid: 'r1', displayname: 'R1' });
    await postComment(api, c.conversationid, { userid: 'r2', displayname: 'R2' });
    const one = await api.post(`comment/conversations/${c.conversationid}/react`, { userid: 'r1', reaction: 'like', reacted: true });
    expect(one.status).toBe(200);
    const two = await api.post(`comment/conversations/${c.conversationid}/react/`, { userid: 'r2', reaction: 'like', reacted: 'true' });
    expect(two.status).toBe(200);
    expect(two.body.data.likecount).toBe(2);
    expect(two.body.data.reactions).toEqual([{ type: 'like', count: 2, users: ['r1', 'r2'] }]);
    const again = await api.post(`comment/conversations/${c.conversationid}/react`, { userid: 'r2', reaction: 'like', reacted: true });
    expect(again.body.data.likecount).toBe(2);
    const off = await api.post(`comment/conversations/${c.conversationid}/react`, { userid: 'r1', reaction: 'like', reacted: false });
    expect(off.body.data.likecount).toBe(1);
    expect((await api.post(`comment/conversations/${c.conversationid}/react`, { userid: 'r1', reaction: 'frown', reacted: true })).status).toBe(400);
    expect((await api.post(`comment/conversations/${c.conversationid}/react`, { userid: uid('ghost'), reaction: 'like', reacted: true })).status).toBe(404);
  });

  it('resets: all comments and replies gone, counts reported', async () => {
    const c = await newConversation(api);
    const top = await postComment(api, c.conversationid);
    await postComment(api, c.conversationid, {}, top.id);
    await postComment(api, c.conversationid);
    const res = await api.post(`comment/conversations/${c.conversationid}/reset`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ kind: 'delete.conversation', conversationid: c.conversationid, deletedconversations: 0, deletedcomments: 3 });
    expect((await api.get(`comment/conversations/${c.conversationid}/comments/${top.id}`)).status).toBe(404);
    const after = await api.get(`comment/conversations/${c.conversationid}/comments`);
    expect(after.body.data.comments).toEqual([]);
    expect(after.body.data.conversation.commentcount).toBe(0);
  });

  it('deletes a conversation with its comments', async () => {
    const c = await newConversation(api);
    await postComment(api, c.conversationid);
    const res = await api.delete(`comment/conversations/${c.conversationid}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ kind: 'delete.conversation', conversationid: c.conversationid, deletedconversations: 1, deletedcomments: 1 });
    expect((await api.get(`comment/conversations/${c.conversationid}`)).status).toBe(404);
    expect((await api.delete(`comment/conversations/${c.conversationid}`)).status).toBe(404);
  });
});
