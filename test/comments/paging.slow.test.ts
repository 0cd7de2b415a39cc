import { beforeAll, describe, expect, it } from 'vitest';
import { newApp, type Client } from '../helpers/api.js';
import { allPages, inBatches, newConversation, postComment } from './helpers.js';

const TOTAL = 2000;
let api: Client;
let conv: string;
/** Comment ids in the order of their added time (ties broken by id). */
let byTime: string[];

interface Item {
  id: string;
  added: string;
  likecount: number;
  votescore: number;
  replycount: number;
}

beforeAll(async () => {
  ({ api } = await newApp());
  conv = (await newConversation(api)).conversationid;
  await api.post('user/users/pager', { displayname: 'Pager' });
  // Several comments share each added time, so the id tie-break is exercised. Ten comments per
  // author: within the per-user comment limit (RATE_LIMIT_COMMENTS).
  const base = Date.parse('2022-01-01T00:00:00.000Z');
  const created = await inBatches(TOTAL, 50, (i) =>
    postComment(api, conv, { userid: `pager${i % 200}`, displayname: `Pager ${i % 200}`, body: `comment ${i}`, added: new Date(base + Math.floor(i / 3) * 1000).toISOString() }),
  );
  byTime = created
    .map((c) => ({ id: c.id as string, t: Date.parse(c.added) }))
    .sort((x, y) => x.t - y.t || (x.id < y.id ? -1 : 1))
    .map((c) => c.id);
  // Give some comments likes, votes and replies so the count sorts have ties and differences.
  await inBatches(60, 30, (i) => api.post(`comment/conversations/${conv}/comments/${created[i * 7]?.id}/react`, { userid: 'pager', reaction: 'like', reacted: true }));
  await inBatches(40, 20, (i) => api.post(`comment/conversations/${conv}/comments/${created[i * 11]?.id}/vote`, { userid: 'pager', vote: i % 2 === 0 ? 'up' : 'down' }));
  await inBatches(30, 15, (i) => postComment(api, conv, { userid: `replier${i}`, displayname: `Replier ${i}`, body: 'reply' }, created[i * 13]?.id));
}, 600_000);

function expectEachOnce(items: Item[]): void {
  const seen = new Set(items.map((c) => c.id));
  expect(seen.size).toBe(items.length);
  expect(items.length).toBe(TOTAL);
}

describe(`paging a conversation of ${TOTAL} comments`, () => {
  it('oldest and newest: every comment once, in time order', async () => {
    const oldest: Item[] = await allPages(api, `comment/conversations/${conv}/comments`, 'sort=oldest&limit=150');
    expectEachOnce(oldest);
    expect(oldest.map((c) => c.id)).toEqual(byTime);
    const newest: Item[] = await allPages(api, `comment/conversations/${conv}/comments`, 'sort=newest&limit=199');
    expect(newest.map((c) => c.id)).toEqual([...byTime].reverse());
    const backward: Item[] = await allPages(api, `comment/conversations/${conv}/comments`, 'sort=oldest&direction=backward&limit=200');
    expect(backward.map((c) => c.id)).toEqual([...byTime].reverse());
  });

  it('likes, votescore, mostreplies: every comment once, ordered by the count', async () => {
    for (const [sort, field] of [
      ['likes', 'likecount'],
      ['votescore', 'votescore'],
      ['mostreplies', 'replycount'],
    ] as const) {
      const items: Item[] = await allPages(api, `comment/conversations/${conv}/comments`, `sort=${sort}&limit=128`);
      expectEachOnce(items);
      const counts = items.map((c) => c[field]);
      expect(counts).toEqual([...counts].sort((x, y) => y - x));
      expect(counts[0]).toBeGreaterThan(0);
    }
  });

  it('loses and repeats nothing while comments are added during paging (oldest and newest)', async () => {
    for (const sort of ['oldest', 'newest'] as const) {
      const before = new Set(byTime);
      const added: string[] = [];
      let writing = true;
      const writer = (async () => {
        // A new author for each: within the per-user comment limit (RATE_LIMIT_COMMENTS).
        while (writing) added.push((await postComment(api, conv, { userid: `live${sort}${added.length}`, displayname: `Live ${sort} ${added.length}`, body: 'live' })).id);
      })();
      const items: Item[] = [];
      let cursor = '';
      try {
        do {
          const res = await api.get(`comment/conversations/${conv}/comments?sort=${sort}&limit=100${cursor === '' ? '' : `&cursor=${cursor}`}`);
          expect(res.status).toBe(200);
          items.push(...res.body.data.comments);
          cursor = res.body.data.cursor;
        } while (cursor !== '');
      } finally {
        writing = false;
        await writer;
      }
      const ids = items.map((c) => c.id);
      expect(new Set(ids).size).toBe(ids.length);
      for (const id of before) expect(ids.includes(id), id).toBe(true);
      expect(added.length).toBeGreaterThan(0);
      if (sort === 'oldest') {
        // New comments come after everything already there: the walk reaches all written before its last page.
        const seenNew = ids.filter((id) => !before.has(id));
        expect(seenNew).toEqual(added.slice(0, seenNew.length));
        expect(seenNew.length).toBeGreaterThan(0);
      }
      const times = items.map((c) => Date.parse(c.added));
      expect(times).toEqual([...times].sort((x, y) => (sort === 'oldest' ? x - y : y - x)));
      byTime.push(...added);
      for (const id of added) before.add(id);
    }
  });
});
