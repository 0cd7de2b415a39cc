import { describe, expect, it } from 'vitest';
import { inBatches } from '../comments/helpers.js';
import { twoNodesForSuite } from './two-nodes.js';

/** Two server processes taking votes and likes on one comment in one Postgres: each node's batches race the other's. */
describe('a crowd on one comment through two nodes', () => {
  const nodes = twoNodesForSuite({ redis: true });

  it('counts each fan once, with the same vote or like sent to both nodes at once, and both nodes read the same', async () => {
    const { api } = nodes.a;
    const conversationid = `crowd-${Date.now()}`;
    await api.post('comment/conversations', { conversationid, property: 'p', moderation: 'post' });
    const comment = (await api.post(`comment/conversations/${conversationid}/comments`, { userid: 'author', displayname: 'Author', body: 'hot take' })).body.data;
    const fans = Array.from({ length: 200 }, (_, i) => `fan${i}`);
    await inBatches(fans.length, 50, (i) => api.post(`user/users/${fans[i]}`, { displayname: `Fan ${i}` }));
    const path = `comment/conversations/${conversationid}/comments/${comment.id}`;
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
});
