import { PGlite } from '@electric-sql/pglite';
import { rmSync } from 'node:fs';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { EMBEDDED_OPTIONS } from '../../src/db/embedded.js';
import { type Client, newApp } from '../helpers/api.js';
import { spawnServer, type SpawnedServer } from '../helpers/spawn.js';
import { join, makeRoom, say } from './helpers.js';
import { freshDataDir } from '../helpers/data-template.js';

/**
 * chat_reactions has no foreign key to chat_events (its check cost every like a query): a
 * statement trigger deletes the reactions of deleted events. Every way events go (one deleted,
 * a user's purged, a room reset, a room deleted) leaves no reaction row behind, read from the
 * database itself: DATABASE_URL while the server runs, else the embedded data directory once it
 * has stopped. Likes through the crowd's statement and other reactions are both written.
 */
const postgresUrl = process.env['DATABASE_URL'] ?? '';
const dataDir = freshDataDir();
let server: SpawnedServer | undefined;
afterAll(async () => {
  await server?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** How many reaction rows each of `eventIds` has in the database the server wrote (stopping an embedded server to read it). */
async function reactionRows(eventIds: string[]): Promise<Map<string, number>> {
  const query = 'select event_id, count(*)::int as n from chat_reactions where event_id = any($1::text[]) group by event_id';
  let found: { event_id: string; n: number }[];
  if (postgresUrl !== '') {
    const client = new pg.Client({ connectionString: postgresUrl });
    await client.connect();
    try {
      found = (await client.query<{ event_id: string; n: number }>(query, [eventIds])).rows;
    } finally {
      await client.end();
    }
  } else {
    await server?.stop();
    server = undefined;
    const db = new PGlite(dataDir, EMBEDDED_OPTIONS);
    try {
      found = (await db.query<{ event_id: string; n: number }>(query, [eventIds])).rows;
    } finally {
      await db.close();
    }
  }
  return new Map(found.map((f) => [f.event_id, f.n]));
}

describe('reactions of deleted chat events', () => {
  it('go with their events however these are deleted, and the likes of the events kept stay counted exactly', async () => {
    server = await spawnServer({ DATA_DIR: dataDir, RATE_LIMITS: 'off' });
    const { api } = await newApp({}, server.url);
    const fans = Array.from({ length: 12 }, (_, i) => `fan${i}`);

    /** A room with a moderator, an author and the fans joined, and `n` events of the author each liked by every fan (all at once) and given an emoji by one. */
    async function reactedRoom(n: number) {
      const room = await makeRoom(api, { enableenterandexit: false });
      const [mod, author] = ['mod', 'author'];
      for (const user of [mod, author, ...fans]) await join(api, room.id, user);
      await api.post(`user/users/${mod}/role`, { role: 'moderator' });
      const events: string[] = [];
      for (let i = 0; i < n; i++) events.push((await say(api, room.id, author, `goal ${i}`)).speech.id);
      await Promise.all(events.flatMap((id) => [...fans.map((fan) => react(api, room.id, id, fan, 'like')), react(api, room.id, id, fans[0] as string, 'emoji:🔥')]));
      return { room, mod, author, events };
    }

    const deletedOne = await reactedRoom(2);
    const [deleted, kept] = deletedOne.events as [string, string];
    expect((await api.delete(`chat/rooms/${deletedOne.room.id}/events/${deleted}?userid=${deletedOne.author}`)).status).toBe(200);
    // Each fan likes the kept event again at once: a repeat counts nothing.
    await Promise.all(fans.map((fan) => react(api, deletedOne.room.id, kept, fan, 'like')));
    const keptView = (await api.get(`chat/rooms/${deletedOne.room.id}/events/${kept}`)).body.data;
    expect(keptView.likecount).toBe(fans.length);
    expect(Object.fromEntries(keptView.reactions.map((r: { type: string; count: number }) => [r.type, r.count]))).toEqual({ like: fans.length, 'emoji:🔥': 1 });

    const purged = await reactedRoom(2);
    expect((await say(api, purged.room.id, purged.mod, `*purge ${purged.author}`)).op).toBe('purge');

    const reset = await reactedRoom(2);
    expect((await api.post(`chat/rooms/${reset.room.id}/reset`, {})).status).toBe(200);

    const cleared = await reactedRoom(2);
    expect((await api.delete(`chat/rooms/${cleared.room.id}/events`)).status).toBe(200);

    const roomDeleted = await reactedRoom(3);
    expect((await api.delete(`chat/rooms/${roomDeleted.room.id}`)).status).toBe(200);

    const gone = [deleted, ...purged.events, ...reset.events, ...cleared.events, ...roomDeleted.events];
    const left = await reactionRows([...gone, kept]);
    expect(Object.fromEntries(gone.map((id) => [id, left.get(id) ?? 0]))).toEqual(Object.fromEntries(gone.map((id) => [id, 0])));
    expect(left.get(kept)).toBe(fans.length + 1);
  }, 120_000);
});

async function react(api: Client, roomId: string, eventId: string, userid: string, reaction: string): Promise<void> {
  const res = await api.post(`chat/rooms/${roomId}/events/${eventId}/react`, { userid, reaction, reacted: true });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}
