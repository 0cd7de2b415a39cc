import { describe, expect, it } from 'vitest';
import { join, makeRoom, say } from '../chat/helpers.js';
import { twoNodesForSuite } from './two-nodes.js';

/**
 * Joins on a node that never read the user: a fan new to that node is inserted at once, and one
 * the database already holds falls back to being read and checked. The room each node keeps in
 * memory after a batch of joins shows the count exact on both nodes. The page a crowd of new fans
 * shares on one node shows what the other node changed before their joins were sent.
 */
describe('joining over two nodes', () => {
  const nodes = twoNodesForSuite({ redis: true, env: { RATE_LIMITS: 'off' } });

  it('refuses a user banned through the other node, and keeps the handle and name they had', async () => {
    const room = await makeRoom(nodes.a.api, { enableenterandexit: false });
    const userid = `outlaw${Date.now()}`;
    expect((await nodes.a.api.post(`user/users/${userid}`, { handle: userid, displayname: 'Outlaw' })).status).toBe(200);
    expect((await nodes.a.api.post(`user/users/${userid}/ban`, { applyeffect: true })).status).toBe(200);
    const refused = await nodes.b.post(`chat/rooms/${room.id}/join`, { userid, displayname: 'Someone else' });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toMatch(/banned/);
    const user = (await nodes.b.get(`user/users/${userid}`)).body.data;
    expect(user).toMatchObject({ userid, handle: userid, displayname: 'Outlaw', banned: true });
    expect((await nodes.b.get(`chat/rooms/${room.id}`)).body.data.inroom).toBe(0);
  });

  it('shows the exact inroom in updates on both nodes after a crowd joined through both, and after half of it left through both', async () => {
    const room = await makeRoom(nodes.a.api, { enableenterandexit: false });
    // Both nodes hold the room in memory before the crowd comes.
    for (const api of [nodes.a.api, nodes.b]) expect((await api.get(`chat/rooms/${room.id}/updates`)).body.data.room.inroom).toBe(0);
    const fans = Array.from({ length: 100 }, (_, i) => `both${Date.now()}x${i}`);
    await Promise.all(fans.map((userid, i) => join(i % 2 === 0 ? nodes.a.api : nodes.b, room.id, userid)));
    for (const api of [nodes.a.api, nodes.b]) expect((await api.get(`chat/rooms/${room.id}/updates`)).body.data.room.inroom).toBe(100);
    // Half leave through both nodes, each of them twice at once.
    await Promise.all(fans.slice(0, 50).flatMap((userid) => [nodes.a.api, nodes.b].map((api) => api.post(`chat/rooms/${room.id}/exit`, { userid }))));
    for (const api of [nodes.a.api, nodes.b]) expect((await api.get(`chat/rooms/${room.id}/updates`)).body.data.room.inroom).toBe(50);
  }, 60_000);

  it("shows the fans of a crowd joining through one node the author's name and the room's reset made through the other", async () => {
    const room = await makeRoom(nodes.a.api, { enableenterandexit: false });
    const host = (await join(nodes.a.api, room.id, undefined, { displayname: 'Commentator' })).user.userid as string;
    await say(nodes.a.api, room.id, host, 'and they score');
    const crowd = async (label: string) => {
      const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => nodes.a.api.post(`chat/rooms/${room.id}/join`, { userid: `${label}${Date.now()}x${i}` })));
      return answers.map((res) => {
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        return res.body.data.eventscursor.events as { user: { displayname: string } }[];
      });
    };
    for (const events of await crowd('before')) expect(events.map((e) => e.user.displayname)).toEqual(['Commentator']);
    expect((await nodes.b.post(`user/users/${host}`, { displayname: 'Head Commentator' })).status).toBe(200);
    for (const events of await crowd('renamed')) expect(events.map((e) => e.user.displayname)).toEqual(['Head Commentator']);
    expect((await nodes.b.post(`chat/rooms/${room.id}/reset`, {})).status).toBe(200);
    for (const events of await crowd('reset')) expect(events).toEqual([]);
  }, 60_000);
});
