import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client, TestApp } from '../helpers/api.js';
import { join, makeRoom, say } from '../chat/helpers.js';
import { eventually } from './infra.js';
import { startTwoNodes, type TwoNodes } from './two-nodes.js';

/** Each node remembers who is in a room; a departure on one node must end the other's memory of it. */
describe('room membership across two nodes', () => {
  let cluster: TwoNodes;
  let t: TestApp;
  let b: Client;

  beforeAll(async () => {
    cluster = await startTwoNodes({ redis: true });
    ({ a: t, b } = cluster);
  }, 120_000);

  afterAll(async () => {
    await cluster?.stop();
  });

  const command = (api: Client, roomid: string, userid: string) => api.post(`chat/rooms/${roomid}/command`, { userid, command: 'here?' });
  /** The node learns of a departure elsewhere over the bus, shortly after the request that made it returns. */
  const refusedOn = (api: Client, roomid: string, userid: string) =>
    eventually(async () => {
      const res = await command(api, roomid, userid);
      return res.status === 403 && /must join/.test(res.body.message);
    }, 5000, `${userid} refused`);

  it('a user who exits on one node, or is bounced on the other, can no longer post on either; rejoining lets them post again', async () => {
    const room = await makeRoom(t.api, { enableenterandexit: false });
    const stays = (await join(t.api, room.id)).user.userid as string;
    const userid = (await join(t.api, room.id)).user.userid as string;
    // B has no memory of the join made on A: it checks the database and remembers the user.
    await say(b, room.id, userid, 'on B');

    expect((await t.api.post(`chat/rooms/${room.id}/exit`, { userid })).status).toBe(200);
    expect((await command(t.api, room.id, userid)).status).toBe(403);
    await refusedOn(b, room.id, userid);
    expect((await command(b, room.id, userid)).status).toBe(403);
    for (const api of [t.api, b]) {
      expect((await api.get(`chat/rooms/${room.id}`)).body.data.inroom).toBe(1);
      const listed = (await api.get(`chat/rooms/${room.id}/participants`)).body.data.participants;
      expect(listed.map((p: { user: { userid: string } }) => p.user.userid)).toEqual([stays]);
    }

    await join(b, room.id, userid);
    await say(t.api, room.id, userid, 'back on A');
    await say(b, room.id, userid, 'back on B');

    // Bounced on B and let back in: on A, still not in the room.
    expect((await b.post(`chat/rooms/${room.id}/bounce`, { userid, bounce: true })).status).toBe(200);
    expect((await b.post(`chat/rooms/${room.id}/bounce`, { userid, bounce: false })).status).toBe(200);
    await refusedOn(t.api, room.id, userid);
    expect((await command(t.api, room.id, userid)).status).toBe(403);
    expect((await t.api.get(`chat/rooms/${room.id}`)).body.data.inroom).toBe(1);
  });
});
