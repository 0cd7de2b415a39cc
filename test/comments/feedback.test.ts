import { beforeAll, describe, expect, it } from 'vitest';
import { newApp, uid, type Client } from '../helpers/api.js';
import { inBatches, newConversation, postComment } from './helpers.js';

let api: Client;
beforeAll(async () => {
  ({ api } = await newApp());
});

/** Users that exist, so they may vote, react and report. */
async function users(n: number): Promise<string[]> {
  const ids = Array.from({ length: n }, () => uid('v'));
  for (const id of ids) expect((await api.post(`user/users/${id}`, { displayname: id })).status).toBe(200);
  return ids;
}

describe('votes', () => {
  it('keeps one vote per user, with votes, votecount and votescore exact', async () => {
    const c = await newConversation(api);
    const comment = await postComment(api, c.conversationid);
    const [a, b, d] = await users(3);
    const path = `comment/conversations/${c.conversationid}/comments/${comment.id}/vote`;
    expect((await api.post(path, { userid: a, vote: 'up' })).body.data).toMatchObject({ votecount: 1, votescore: 1 });
    expect((await api.post(path, { userid: a, vote: 'up' })).body.data).toMatchObject({ votecount: 1, votescore: 1 });
    await api.post(path, { userid: b, vote: 'up' });
    const down = await api.post(path, { userid: d, vote: 'down' });
    expect(down.body.data).toMatchObject({ votecount: 3, votescore: 1 });
    const byType = Object.fromEntries(down.body.data.votes.map((v: { type: string }) => [v.type, v]));
    expect(byType.up.count).toBe(2);
    expect(byType.up.users.map((u: { userid: string }) => u.userid)).toEqual([a, b]);
    expect(byType.up.users[0]).toMatchObject({ userid: a, displayname: a });
    expect(byType.down).toMatchObject({ count: 1 });
    const switched = await api.post(path, { userid: a, vote: 'down' });
    expect(switched.body.data).toMatchObject({ votecount: 3, votescore: -1 });
    const removed = await api.post(path, { userid: a, vote: 'none' });
    expect(removed.body.data).toMatchObject({ votecount: 2, votescore: 0 });
    const empty = await api.post(path, { userid: b, vote: '' });
    expect(empty.body.data).toMatchObject({ votecount: 1, votescore: -1 });
    expect((await api.post(path, { userid: a, vote: 'sideways' })).body.errors.vote).toBeDefined();
    expect((await api.post(path, { userid: a })).body.errors.vote).toBeDefined();
    expect((await api.post(path, { userid: uid('ghost'), vote: 'up' })).status).toBe(404);
    expect((await api.post(`comment/conversations/${c.conversationid}/comments/${uid('x')}/vote`, { userid: a, vote: 'up' })).status).toBe(404);
  });

  it('stays exact under concurrent votes', async () => {
    const c = await newConversation(api);
    const comment = await postComment(api, c.conversationid);
    const voters = await users(24);
    await Promise.all(voters.map((v, i) => api.post(`comment/conversations/${c.conversationid}/comments/${comment.id}/vote`, { userid: v, vote: i % 3 === 0 ? 'down' : 'up' })));
    const got = (await api.get(`comment/conversations/${c.conversationid}/comments/${comment.id}`)).body.data;
    expect(got.votecount).toBe(24);
    expect(got.votescore).toBe(16 - 8);
  });
});

describe('reactions', () => {
  it('adds and removes like and emoji reactions; likecount exact', async () => {
    const c = await newConversation(api);
    const comment = await postComment(api, c.conversationid);
    const [a, b] = await users(2);
    const path = `comment/conversations/${c.conversationid}/comments/${comment.id}/react`;
    await api.post(path, { userid: a, reaction: 'like', reacted: true });
    await api.post(path, { userid: b, reaction: 'like', reacted: true });
    const emoji = await api.post(path, { userid: a, reaction: 'emoji:🔥', reacted: true });
    expect(emoji.status).toBe(200);
    expect(emoji.body.data.likecount).toBe(2);
    expect(emoji.body.data.reactions).toHaveLength(2);
    const like = emoji.body.data.reactions.find((r: { type: string }) => r.type === 'like');
    expect(like.count).toBe(2);
    expect(like.users.map((u: { userid: string }) => u.userid)).toEqual([a, b]);
    const off = await api.post(path, { userid: a, reaction: 'like', reacted: false });
    expect(off.body.data.likecount).toBe(1);
    const stillOff = await api.post(path, { userid: a, reaction: 'like', reacted: false });
    expect(stillOff.body.data.likecount).toBe(1);
    // Un-reacting to zero keeps the entry with count 0 and no users (settled from the SDKs).
    const emptied = await api.post(path, { userid: a, reaction: 'emoji:🔥', reacted: false });
    expect(emptied.body.data.reactions.map((r: { type: string; count: number; users: unknown[] }) => [r.type, r.count, r.users.length])).toEqual([
      ['like', 1, 1],
      ['emoji:🔥', 0, 0],
    ]);
    const read = await api.get(`comment/conversations/${c.conversationid}/comments/${comment.id}`);
    expect(read.body.data.reactions.find((r: { type: string }) => r.type === 'emoji:🔥')).toMatchObject({ count: 0, users: [] });
    expect((await api.post(path, { userid: a, reaction: 'like' })).body.errors.reacted).toBeDefined();
    expect((await api.post(path, { userid: a, reaction: 'hug', reacted: true })).body.errors.reaction).toBeDefined();
  });

  it('stays exact under concurrent likes', async () => {
    const c = await newConversation(api);
    const comment = await postComment(api, c.conversationid);
    const fans = await users(24);
    await Promise.all(fans.map((f) => api.post(`comment/conversations/${c.conversationid}/comments/${comment.id}/react`, { userid: f, reaction: 'like', reacted: true })));
    const got = (await api.get(`comment/conversations/${c.conversationid}/comments/${comment.id}`)).body.data;
    expect(got.likecount).toBe(24);
    expect(got.reactions[0].count).toBe(24);
    // The latest REACTION_USERS_SHOWN (10) are listed.
    expect(got.reactions[0].users).toHaveLength(10);
  });
});

describe('reports and the moderation queue', () => {
  it('records one report per user; at maxreports the comment is flagged into the queue', async () => {
    const c = await newConversation(api, { maxreports: 2 });
    const comment = await postComment(api, c.conversationid);
    const [a, b] = await users(2);
    const path = `comment/conversations/${c.conversationid}/comments/${comment.id}/report`;
    const first = await api.post(path, { userid: a, reporttype: 'spam' });
    expect(first.status).toBe(200);
    expect(first.body.data).toMatchObject({ active: true, moderation: 'na', reports: [{ userid: a, reason: 'spam' }] });
    const dup = await api.post(path, { userid: a, reporttype: 'abuse' });
    expect(dup.status).toBe(200);
    expect(dup.body.data.reports).toHaveLength(1);
    expect(dup.body.data.active).toBe(true);
    const second = await api.post(path, { userid: b, reporttype: 'abuse' });
    expect(second.body.data).toMatchObject({ active: false, moderation: 'flagged' });
    expect(second.body.data.reports).toHaveLength(2);
    expect((await api.get(`comment/conversations/${c.conversationid}/comments`)).body.data.comments).toEqual([]);
    const queue = await api.get(`comment/moderation/queues/comments?conversationid=${c.conversationid}`);
    expect(queue.body.data.comments.map((x: { id: string }) => x.id)).toEqual([comment.id]);
    expect(queue.body.data.comments[0].conversationid).toBe(c.conversationid);
    expect((await api.post(path, { userid: a, reporttype: 'nonsense' })).body.errors.reporttype).toBeDefined();
    expect((await api.post(path, { reporttype: 'spam' })).body.errors.userid).toBeDefined();
  });

  it('with maxreports 0 the first report flags the comment', async () => {
    const c = await newConversation(api, { maxreports: 0 });
    const comment = await postComment(api, c.conversationid);
    const [a] = await users(1);
    const res = await api.post(`comment/conversations/${c.conversationid}/comments/${comment.id}/report`, { userid: a, reporttype: 'hate' });
    expect(res.body.data).toMatchObject({ active: false, moderation: 'flagged' });
  });

  it('approve makes a flagged comment visible again; reject keeps it hidden; others are not moderatable', async () => {
    const c = await newConversation(api, { maxreports: 0 });
    const [a] = await users(1);
    const keep = await postComment(api, c.conversationid, { body: 'keep me' });
    const drop = await postComment(api, c.conversationid, { body: 'drop me' });
    const untouched = await postComment(api, c.conversationid, { body: 'fine' });
    for (const x of [keep, drop]) await api.post(`comment/conversations/${c.conversationid}/comments/${x.id}/report`, { userid: a, reporttype: 'spam' });
    const approved = await api.post(`comment/moderation/queues/comments/${keep.id}/applydecision`, { approve: 'true' });
    expect(approved.body.data).toMatchObject({ active: true, moderation: 'approved' });
    const rejected = await api.post(`comment/moderation/queues/comments/${drop.id}/applydecision`, { approve: false });
    expect(rejected.body.data).toMatchObject({ active: false, moderation: 'rejected' });
    const list = await api.get(`comment/conversations/${c.conversationid}/comments`);
    expect(list.body.data.comments.map((x: { id: string }) => x.id).sort()).toEqual([keep.id, untouched.id].sort());
    expect((await api.get(`comment/moderation/queues/comments?conversationid=${c.conversationid}`)).body.data.comments).toEqual([]);
    const again = await api.post(`comment/moderation/queues/comments/${untouched.id}/applydecision`, { approve: true });
    expect(again.status).toBe(400);
    expect((await api.post(`comment/moderation/queues/comments/${uid('x')}/applydecision`, { approve: true })).status).toBe(404);
    expect((await api.post(`comment/moderation/queues/comments/${keep.id}/applydecision`, {})).body.errors.approve).toBeDefined();
  });

  it('pages the queue across conversations', async () => {
    const { api: own } = await newApp();
    const c = await newConversation(own, { moderation: 'pre' });
    const d = await newConversation(own, { moderation: 'pre' });
    const held = await inBatches(7, 7, (i) => postComment(own, i % 2 === 0 ? c.conversationid : d.conversationid, { body: `held ${i}` }));
    const seen: string[] = [];
    let cursor = '';
    do {
      const res = await own.get(`comment/moderation/queues/comments?limit=3${cursor === '' ? '' : `&cursor=${cursor}`}`);
      expect(res.status).toBe(200);
      seen.push(...res.body.data.comments.map((x: { id: string }) => x.id));
      cursor = res.body.data.cursor;
    } while (cursor !== '');
    expect(seen.sort()).toEqual(held.map((h) => h.id).sort());
    expect((await own.get('comment/moderation/queues/comments?cursor=garbage')).status).toBe(400);
  });
});
