import { describe, expect, it } from 'vitest';
import { allPages, inBatches } from '../comments/helpers.js';
import { twoNodesForSuite } from './two-nodes.js';

/** Two server processes taking votes and likes on one comment in one Postgres: each node's batches race the other's. */
describe('a crowd on one comment through two nodes', () => {
  const nodes = twoNodesForSuite({ redis: true });

  /** A comment in a fresh conversation and `n` fans (users) ready to vote on it. */
  async function hotComment(prefix: string, n: number): Promise<{ path: string; fans: string[] }> {
    const { api } = nodes.a;
    const conversationid = `${prefix}-${Date.now()}`;
    await api.post('comment/conversations', { conversationid, property: 'p', moderation: 'post' });
    const comment = (await api.post(`comment/conversations/${conversationid}/comments`, { userid: 'author', displayname: 'Author', body: 'hot take' })).body.data;
    const fans = Array.from({ length: n }, (_, i) => `${prefix}${i}`);
    const made = await inBatches(fans.length, 50, (i) => api.post(`user/users/${fans[i]}`, { displayname: `${prefix} ${i}` }));
    expect(made.filter((r) => r.status !== 200).map((r) => JSON.stringify(r.body))).toEqual([]);
    return { path: `comment/conversations/${conversationid}/comments/${comment.id}`, fans };
  }

  it('counts each fan once, with the same vote or like sent to both nodes at once, and both nodes read the same', async () => {
    const { path, fans } = await hotComment('fan', 200);
    const results = await Promise.all(
      fans.flatMap((userid, i) =>
        [nodes.a.api, nodes.b].flatMap((node) => [node.post(`${path}/vote`, { userid, vote: i % 4 === 0 ? 'down' : 'up' }), node.post(`${path}/react`, { userid, reaction: 'like', reacted: true })]),
      ),
    );
    expect(results.every((r) => r.status === 200)).toBe(true);
    for (const node of [nodes.a.api, nodes.b]) {
      const got = (await node.get(path)).body.data;
      expect(got).toMatchObject({ votecount: 200, votescore: 150 - 50, likecount: 200 });
      expect(got.votes.map((t: { type: string; count: number }) => [t.type, t.count]).sort()).toEqual([
        ['down', 50],
        ['up', 150],
      ]);
      expect(got.reactions[0].users).toHaveLength(10);
    }
  }, 120_000);

  it('stays exact when each fan changes side on one node while taking the vote back on the other at once: every count matches the rows', async () => {
    const { api } = nodes.a;
    const { path, fans } = await hotComment('side', 150);
    const race = (votes: [string, string]) =>
      Promise.all(fans.flatMap((userid) => [nodes.a.api.post(`${path}/vote`, { userid, vote: votes[0] }), nodes.b.post(`${path}/vote`, { userid, vote: votes[1] })]));
    for (const answers of [await race(['up', 'up']), await race(['down', 'none']), await race(['up', 'none']), await race(['none', 'down'])])
      expect(answers.filter((r) => r.status !== 200).map((r) => JSON.stringify(r.body))).toEqual([]);
    const up = await allPages(api, `${path}/votes`, 'vote=up&limit=200', 'users');
    const down = await allPages(api, `${path}/votes`, 'vote=down&limit=200', 'users');
    expect(new Set([...up, ...down].map((u: { userid: string }) => u.userid)).size).toBe(up.length + down.length);
    for (const node of [nodes.a.api, nodes.b]) {
      const got = (await node.get(path)).body.data;
      expect(got).toMatchObject({ votecount: up.length + down.length, votescore: up.length - down.length });
      const counts = Object.fromEntries(got.votes.map((t: { type: string; count: number }) => [t.type, t.count]));
      expect(counts.up ?? 0).toBe(up.length);
      expect(counts.down ?? 0).toBe(down.length);
    }
  }, 120_000);
});
