import { describe, expect, it } from 'vitest';
import { join, makeRoom, say } from '../chat/helpers.js';
import { twoNodesForSuite } from './two-nodes.js';

/** A crowd split over two nodes joining one room and liking one event: each node's batches race the other's on the same rows. */
describe('a crowd over two nodes', () => {
  const nodes = twoNodesForSuite({ redis: true, env: { RATE_LIMITS: 'off' } });
  const CROWD = 200;

  it('counts each fan once in inroom and each like once, whichever nodes took them and however often', async () => {
    const room = await makeRoom(nodes.a.api, { enableenterandexit: false });
    const author = (await join(nodes.a.api, room.id)).user.userid as string;
    const goal = (await say(nodes.a.api, room.id, author, 'GOAL!')).speech;
    const fans = Array.from({ length: CROWD }, (_, i) => `cfan${i}`);
    // Each fan joins through both nodes at once.
    const joins = await Promise.all(fans.flatMap((userid) => [nodes.a.api, nodes.b].map((api) => api.post(`chat/rooms/${room.id}/join`, { userid }))));
    expect(joins.filter((r) => r.status === 200)).toHaveLength(2 * CROWD);
    for (const api of [nodes.a.api, nodes.b]) expect((await api.get(`chat/rooms/${room.id}`)).body.data.inroom).toBe(CROWD + 1);

    // Each fan likes through both nodes at once; a fifth then take it back, through either.
    const likes = await Promise.all(
      fans.flatMap((userid) => [nodes.a.api, nodes.b].map((api) => api.post(`chat/rooms/${room.id}/events/${goal.id}/react`, { userid, reaction: 'like', reacted: true }))),
    );
    expect(likes.filter((r) => r.status === 200)).toHaveLength(2 * CROWD);
    const unliking = fans.slice(0, CROWD / 5);
    await Promise.all(unliking.map((userid, i) => (i % 2 === 0 ? nodes.a.api : nodes.b).post(`chat/rooms/${room.id}/events/${goal.id}/react`, { userid, reaction: 'like', reacted: false })));
    for (const api of [nodes.a.api, nodes.b]) {
      const event = (await api.get(`chat/rooms/${room.id}/events/${goal.id}`)).body.data;
      expect(event.likecount).toBe(CROWD - unliking.length);
      expect(event.reactions[0].count).toBe(CROWD - unliking.length);
      expect(event.reactions[0].users).toHaveLength(10);
    }

    // Half leave through both nodes at once.
    const leaving = fans.slice(0, CROWD / 2);
    await Promise.all(leaving.flatMap((userid) => [nodes.a.api, nodes.b].map((api) => api.post(`chat/rooms/${room.id}/exit`, { userid }))));
    for (const api of [nodes.a.api, nodes.b]) expect((await api.get(`chat/rooms/${room.id}`)).body.data.inroom).toBe(CROWD / 2 + 1);
  }, 120_000);
});
