import { describe, expect, it } from 'vitest';
import type { Client } from '../helpers/api.js';
import { join, makeRoom, say } from '../chat/helpers.js';
import { eventually } from './infra.js';
import { twoNodesForSuite } from './two-nodes.js';

/** Each node remembers who is in a room; a departure on one node must end the other's memory of it. */
describe('room membership across two nodes', () => {
  const nodes = twoNodesForSuite({ redis: true });

  const command = (api: Client, roomid: string, userid: string) => api.post(`chat/rooms/${roomid}/command`, { userid, command: 'here?' });
  /** The node learns of a departure elsewhere over the bus, shortly after the request that made it returns. */
  const refusedOn = (api: Client, roomid: string, userid: string) =>
    eventually(
      async () => {
        const res = await command(api, roomid, userid);
        return res.status === 403 && /must join/.test(res.body.message);
      },
      5000,
      `${userid} refused`,
    );

  it('a user who exits on one node, or is bounced on the other, can no longer post on either; rejoining lets them post again', async () => {
    const room = await makeRoom(nodes.a.api, { enableenterandexit: false });
    const stays = (await join(nodes.a.api, room.id)).user.userid as string;
    const userid = (await join(nodes.a.api, room.id)).user.userid as string;
    // B has no memory of the join made on A: it checks the database and remembers the user.
    await say(nodes.b, room.id, userid, 'on B');

    expect((await nodes.a.api.post(`chat/rooms/${room.id}/exit`, { userid })).status).toBe(200);
    expect((await command(nodes.a.api, room.id, userid)).status).toBe(403);
    await refusedOn(nodes.b, room.id, userid);
    expect((await command(nodes.b, room.id, userid)).status).toBe(403);
    for (const api of [nodes.a.api, nodes.b]) {
      expect((await api.get(`chat/rooms/${room.id}`)).body.data.inroom).toBe(1);
      const listed = (await api.get(`chat/rooms/${room.id}/participants`)).body.data.participants;
      expect(listed.map((p: { user: { userid: string } }) => p.user.userid)).toEqual([stays]);
    }

    await join(nodes.b, room.id, userid);
    await say(nodes.a.api, room.id, userid, 'back on A');
    await say(nodes.b, room.id, userid, 'back on B');

    // Bounced on B and let back in: on A, still not in the room.
    expect((await nodes.b.post(`chat/rooms/${room.id}/bounce`, { userid, bounce: true })).status).toBe(200);
    expect((await nodes.b.post(`chat/rooms/${room.id}/bounce`, { userid, bounce: false })).status).toBe(200);
    await refusedOn(nodes.a.api, room.id, userid);
    expect((await command(nodes.a.api, room.id, userid)).status).toBe(403);
    expect((await nodes.a.api.get(`chat/rooms/${room.id}`)).body.data.inroom).toBe(1);
  });
});
