import { beforeAll, describe, expect, it } from 'vitest';
import { newApp, uid, type Client } from '../helpers/api.js';
import { inBatches, newConversation, postComment } from './helpers.js';

let api: Client;
beforeAll(async () => {
  ({ api } = await newApp());
});

/** Every stored comment of a conversation, whatever its state, at any depth. */
async function stored(conv: string): Promise<number> {
  const res = await api.get(`comment/conversations/${conv}/comments?includechildren=true&includeinactive=true&limit=200`);
  return res.body.data.itemcount;
}

describe('comments written together', () => {
  it('fail alone: a taken customid among concurrent comments refuses only that one', async () => {
    const c = await newConversation(api);
    const customid = uid('dup');
    const results = await inBatches(12, 12, (i) =>
      api.post(`comment/conversations/${c.conversationid}/comments`, { userid: 'w', displayname: 'W', body: `c${i}`, ...(i % 6 === 0 ? { customid } : {}) }),
    );
    expect(results.map((r) => r.status).sort()).toEqual([...Array(11).fill(200), 409].sort());
    expect((await api.get(`comment/conversations/${c.conversationid}`)).body.data.commentcount).toBe(11);
    expect(await stored(c.conversationid)).toBe(11);
  });

  it('keep commentcount and replycount exact while replies race a permanent delete of their parent', async () => {
    const c = await newConversation(api);
    const keep = await postComment(api, c.conversationid);
    const doomed = await postComment(api, c.conversationid);
    const [replies] = await Promise.all([
      inBatches(30, 30, (i) => api.post(`comment/conversations/${c.conversationid}/comments/${i % 2 === 0 ? doomed.id : keep.id}`, { userid: `racer${i}`, displayname: 'Racer', body: `r${i}` })),
      new Promise((r) => setTimeout(r, 20)).then(() => api.delete(`comment/conversations/${c.conversationid}/comments/${doomed.id}`)),
    ]);
    for (const r of replies) expect([200, 404]).toContain(r.status);
    expect(replies.filter((r) => r.status === 200).length).toBeGreaterThanOrEqual(15);
    const count = (await api.get(`comment/conversations/${c.conversationid}`)).body.data.commentcount;
    expect(count).toBe(await stored(c.conversationid));
    expect(count).toBe(16);
    expect((await api.get(`comment/conversations/${c.conversationid}/comments/${keep.id}`)).body.data.replycount).toBe(15);
  });
});
