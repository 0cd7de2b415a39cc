import { describe, expect, it } from 'vitest';
import type { Client } from '../helpers/api.js';
import { join, makeRoom, say } from '../chat/helpers.js';
import { twoNodesForSuite } from './two-nodes.js';

/** Two server processes on one Postgres, with the Redis bus between them. */
describe('the room feed across two nodes', () => {
  const nodes = twoNodesForSuite({ redis: true });

  it("a message posted on one node is in the other node's updates as soon as the POST returns", async () => {
    const room = await makeRoom(nodes.a.api, { enableenterandexit: false });
    const { user, eventscursor } = await join(nodes.a.api, room.id);
    let cursor = eventscursor.cursor as string;
    // Warm node B's memory ring for the room first, so the check covers the ring, not only the database.
    expect((await nodes.b.get(`chat/rooms/${room.id}/updates?cursor=${cursor}`)).status).toBe(200);
    for (let i = 0; i < 20; i++) {
      const sent = await say(nodes.a.api, room.id, user.userid, `cross ${i}`);
      const res = await nodes.b.get(`chat/rooms/${room.id}/updates?cursor=${cursor}`);
      expect(res.body.data.events.map((e: { id: string }) => e.id)).toEqual([sent.speech.id]);
      cursor = res.body.data.cursor;
    }
  });

  it('pollers on both nodes see every event exactly once, in one order, with posters on both nodes', async () => {
    const room = await makeRoom(nodes.a.api, { enableenterandexit: false });
    const clients = [nodes.a.api, nodes.b];
    const posters = [];
    for (let i = 0; i < 6; i++) posters.push((await join(clients[i % 2] as Client, room.id)).user.userid as string);
    const start = (await nodes.a.api.get(`chat/rooms/${room.id}/updates`)).body.data.cursor as string;
    const total = 6 * 30;
    let posting = true;
    const poll = async (api: Client) => {
      const seen: { id: string; body: string }[] = [];
      let cursor = start;
      for (;;) {
        // Read before the request: an empty answer ends the poll only if it was asked after the last post committed.
        const done = !posting;
        const res = await api.get(`chat/rooms/${room.id}/updates?cursor=${cursor}&limit=50`);
        expect(res.status).toBe(200);
        seen.push(...res.body.data.events);
        cursor = res.body.data.cursor;
        if (done && res.body.data.events.length === 0) return seen;
      }
    };
    const pollers = [poll(nodes.a.api), poll(nodes.b), poll(nodes.a.api), poll(nodes.b)];
    await Promise.all(
      posters.map(async (userid, i) => {
        for (let k = 0; k < 30; k++) await say(clients[i % 2] as Client, room.id, userid, `${userid}#${k}`);
      }),
    );
    posting = false;
    const results = await Promise.all(pollers);
    for (const seen of results) {
      expect(seen).toHaveLength(total);
      expect(new Set(seen.map((e) => e.id)).size).toBe(total);
      expect(seen.map((e) => e.id)).toEqual(results[0]?.map((e) => e.id));
      for (const userid of posters) {
        expect(seen.filter((e) => e.body.startsWith(`${userid}#`)).map((e) => e.body)).toEqual(Array.from({ length: 30 }, (_, k) => `${userid}#${k}`));
      }
    }
  }, 60_000);
});
