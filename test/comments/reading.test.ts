import { beforeAll, describe, expect, it } from 'vitest';
import { newApp, uid, type Client } from '../helpers/api.js';
import { allPages, newConversation, postComment } from './helpers.js';

let api: Client;
beforeAll(async () => {
  ({ api } = await newApp());
});

const ids = (list: { id: string }[]) => list.map((c) => c.id);
const list = async (conv: string, query = '') => {
  const res = await api.get(`comment/conversations/${conv}/comments${query === '' ? '' : `?${query}`}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data;
};

describe('listing comments', () => {
  let conv: string;
  let a: { id: string };
  let b: { id: string };
  let d: { id: string };
  let replyB: { id: string };
  let nested: { id: string };

  beforeAll(async () => {
    conv = (await newConversation(api)).conversationid;
    const voters = [uid('v'), uid('v'), uid('v')];
    for (const v of voters) await api.post(`user/users/${v}`, { displayname: v });
    a = await postComment(api, conv, { userid: 'alice', displayname: 'Alice', added: '2021-01-01T00:00:00.000Z' });
    b = await postComment(api, conv, { userid: 'bob', displayname: 'Bob', added: '2021-01-02T00:00:00.000Z' });
    d = await postComment(api, conv, { userid: 'alice', added: '2021-01-03T00:00:00.000Z' });
    // Likes: d 2, a 1. Votescore: b +2, d -1. Replies: b 1 (with one nested below it).
    for (const v of voters.slice(0, 2)) await api.post(`comment/conversations/${conv}/comments/${d.id}/react`, { userid: v, reaction: 'like', reacted: true });
    await api.post(`comment/conversations/${conv}/comments/${a.id}/react`, { userid: voters[0], reaction: 'like', reacted: true });
    for (const v of voters.slice(0, 2)) await api.post(`comment/conversations/${conv}/comments/${b.id}/vote`, { userid: v, vote: 'up' });
    await api.post(`comment/conversations/${conv}/comments/${d.id}/vote`, { userid: voters[2], vote: 'down' });
    replyB = await postComment(api, conv, { userid: 'carol', displayname: 'Carol', added: '2021-01-04T00:00:00.000Z' }, b.id);
    nested = await postComment(api, conv, { userid: 'carol', added: '2021-01-05T00:00:00.000Z' }, replyB.id);
  });

  it('returns list.comments with the conversation, oldest first by default', async () => {
    const data = await list(conv);
    expect(data).toMatchObject({ kind: 'list.comments', cursor: '', more: false, itemcount: 3 });
    expect(data.conversation).toMatchObject({ kind: 'comment.conversation', conversationid: conv, commentcount: 5 });
    expect(ids(data.comments)).toEqual([a.id, b.id, d.id]);
    expect(data.comments[1]).toMatchObject({ replycount: 1, votescore: 2, user: { userid: 'bob', displayname: 'Bob' } });
  });

  it('sorts by every sort, both directions', async () => {
    expect(ids((await list(conv, 'sort=newest')).comments)).toEqual([d.id, b.id, a.id]);
    expect(ids((await list(conv, 'sort=oldest&direction=backward')).comments)).toEqual([d.id, b.id, a.id]);
    expect(ids((await list(conv, 'sort=newest&direction=backward')).comments)).toEqual([a.id, b.id, d.id]);
    expect(ids((await list(conv, 'sort=likes')).comments)).toEqual([d.id, a.id, b.id]);
    expect(ids((await list(conv, 'sort=likes&direction=backward')).comments)).toEqual([b.id, a.id, d.id]);
    expect(ids((await list(conv, 'sort=votescore')).comments)).toEqual([b.id, a.id, d.id]);
    expect(ids((await list(conv, 'sort=mostreplies')).comments)).toEqual([b.id, d.id, a.id]);
    const bad = await api.get(`comment/conversations/${conv}/comments?sort=random`);
    expect(bad.status).toBe(400);
    expect(bad.body.errors.sort).toBeDefined();
    expect((await api.get(`comment/conversations/${conv}/comments?direction=sideways`)).body.errors.direction).toBeDefined();
    expect((await api.get(`comment/conversations/${conv}/comments?limit=201`)).body.errors.limit).toBeDefined();
    expect((await api.get(`comment/conversations/${conv}/comments?cursor=xyz`)).status).toBe(400);
    expect((await api.get(`comment/conversations/${uid('none')}/comments`)).status).toBe(404);
  });

  it('includes every nested reply with includechildren', async () => {
    const data = await list(conv, 'includechildren=true');
    expect(ids(data.comments)).toEqual([a.id, b.id, replyB.id, nested.id, d.id]);
    expect(data.itemcount).toBe(5);
  });

  it('filters by poster and hides inactive comments unless asked', async () => {
    expect(ids((await list(conv, 'filterPostedByUserId=alice')).comments)).toEqual([a.id, d.id]);
    await api.put(`comment/conversations/${conv}/comments/${d.id}/setdeleted?userid=alice&deleted=true`);
    try {
      expect(ids((await list(conv)).comments)).toEqual([a.id, b.id]);
      const all = await list(conv, 'includeinactive=true');
      expect(ids(all.comments)).toEqual([a.id, b.id, d.id]);
      expect(all.comments[2].deleted).toBe(true);
    } finally {
      await api.put(`comment/conversations/${conv}/comments/${d.id}/setdeleted?userid=alice&deleted=false`);
    }
    expect(ids((await list(conv)).comments)).toEqual([a.id, b.id, d.id]);
  });

  it('lists the replies of a comment, paged', async () => {
    const top = await postComment(api, conv, { added: '2021-02-01T00:00:00.000Z' });
    const replies = [];
    for (let i = 0; i < 5; i++) replies.push(await postComment(api, conv, { body: `r${i}` }, top.id));
    const paged = await allPages(api, `comment/conversations/${conv}/comments/${top.id}/replies`, 'limit=2');
    expect(ids(paged)).toEqual(ids(replies));
    const newest = await api.get(`comment/conversations/${conv}/comments/${top.id}/replies?sort=newest&limit=2`);
    expect(newest.body.data).toMatchObject({ kind: 'list.comments', itemcount: 2, more: true });
    expect(ids(newest.body.data.comments)).toEqual([replies[4]?.id, replies[3]?.id]);
    expect((await api.get(`comment/conversations/${conv}/comments/${uid('x')}/replies`)).status).toBe(404);
    await api.delete(`comment/conversations/${conv}/comments/${top.id}`);
  });

  it('returns the first replies of several parents in one call', async () => {
    const p1 = await postComment(api, conv, { added: '2021-03-01T00:00:00.000Z' });
    const p2 = await postComment(api, conv, { added: '2021-03-02T00:00:00.000Z' });
    const r1 = [];
    for (let i = 0; i < 3; i++) r1.push(await postComment(api, conv, { body: `p1 r${i}` }, p1.id));
    const r2 = await postComment(api, conv, { body: 'p2 r0' }, p2.id);
    const res = await api.get(`comment/conversations/${conv}/repliesbyparentidbatch?parentids=${p1.id},${p2.id}&childlimit=2`);
    expect(res.status).toBe(200);
    expect(res.body.data.kind).toBe('list.repliesbyparentid');
    const groups = res.body.data.repliesgroupedbyparentid;
    expect(groups).toHaveLength(2);
    const g1 = groups.find((g: { parentid: string }) => g.parentid === p1.id);
    expect(g1).toMatchObject({ kind: 'list.commentreplygroup', itemcount: 2, more: true });
    expect(ids(g1.comments)).toEqual([r1[0]?.id, r1[1]?.id]);
    // The group's cursor continues in the replies endpoint.
    const rest = await api.get(`comment/conversations/${conv}/comments/${p1.id}/replies?cursor=${g1.cursor}`);
    expect(ids(rest.body.data.comments)).toEqual([r1[2]?.id]);
    const g2 = groups.find((g: { parentid: string }) => g.parentid === p2.id);
    expect(g2).toMatchObject({ more: false, cursor: '' });
    expect(ids(g2.comments)).toEqual([r2.id]);
    expect((await api.get(`comment/conversations/${conv}/repliesbyparentidbatch`)).body.errors.parentids).toBeDefined();
    for (const p of [p1, p2]) await api.delete(`comment/conversations/${conv}/comments/${p.id}`);
  });

  it('serves a first page that reflects every change at once', async () => {
    const c = (await newConversation(api)).conversationid;
    const first = await postComment(api, c, { body: 'one' });
    expect(ids((await list(c, 'sort=newest&limit=20')).comments)).toEqual([first.id]);
    const second = await postComment(api, c, { body: 'two' });
    expect(ids((await list(c, 'sort=newest&limit=20')).comments)).toEqual([second.id, first.id]);
    await api.put(`comment/conversations/${c}/comments/${first.id}`, { userid: 'author', body: 'one, edited' });
    expect((await list(c, 'sort=newest&limit=20')).comments[1].body).toBe('one, edited');
    await api.post(`comment/conversations/${c}/comments/${first.id}/vote`, { userid: 'author', vote: 'up' });
    expect((await list(c, 'sort=newest&limit=20')).comments[1].votescore).toBe(1);
    await api.post('user/users/author', { displayname: 'Renamed Author' });
    expect((await list(c, 'sort=newest&limit=20')).comments[0].user.displayname).toBe('Renamed Author');
    await api.post(`comment/conversations/${c}/reset`);
    expect((await list(c, 'sort=newest&limit=20')).comments).toEqual([]);
  });
});
