import { afterAll, describe, expect, it } from 'vitest';
import { newApp, uid } from '../helpers/api.js';
import { administer, dropDatabase, freshDatabase, onDatabase } from '../helpers/fresh-database.js';
import { spawnServer, type SpawnedServer } from '../helpers/spawn.js';
import { eventually } from '../webhooks/receiver.js';

const NOTIFICATIONS = 60;

/**
 * On Postgres two bulk updates of one user's notifications deadlocked (a 500) when they read the
 * rows in table order, which each update changes: as on a young deployment, whose notifications
 * table is small. So its own server, on a database of its own when DATABASE_URL is set, with
 * rate limits off so that none answers first.
 */
describe('marking every notification read, concurrently', () => {
  let server: SpawnedServer | undefined;
  let own: string | undefined;
  afterAll(async () => {
    await server?.stop();
    await dropDatabase(own);
  });

  it('answers 50 concurrent markread requests, 20 rounds, without one 500', async () => {
    own = await freshDatabase(process.env['DATABASE_URL'], `markread_${process.pid}`);
    server = await spawnServer({ RATE_LIMITS: 'off', ...onDatabase(own) });
    const { api } = await newApp({}, server.url);
    const alice = uid('alice');
    const conversationid = uid('conv');
    expect((await api.post('comment/conversations', { conversationid, property: 'p', moderation: 'post' })).status).toBe(200);
    const comment = await api.post(`comment/conversations/${conversationid}/comments`, { userid: alice, displayname: 'Alice', body: 'react to me' });
    expect(comment.status).toBe(200);
    // Reactions to one comment: notifications for one item, which the notifications_item_idx keeps in table order among themselves.
    for (let i = 0; i < NOTIFICATIONS; i += 10) {
      const reactions = Array.from({ length: 10 }, async (_, k) =>
        (await api.post(`user/users/fan${i + k}`, { displayname: 'Fan' })).status !== 200
          ? undefined
          : api.post(`comment/conversations/${conversationid}/comments/${comment.body.data.id}/react`, { userid: `fan${i + k}`, reaction: 'like', reacted: true }),
      );
      for (const reacted of await Promise.all(reactions)) expect(reacted?.status).toBe(200);
    }
    await eventually(
      () => api.get(`user/users/${alice}/notification/listnotifications?includeread=true&limit=100`).then((r) => (r.body.data.notifications as unknown[]).length),
      (n) => n >= NOTIFICATIONS,
    );
    // What autovacuum does soon on a real deployment: the planner learns the table is small and reads it in table order.
    if (own !== undefined) await administer(own, 'analyze notifications');
    const statuses = new Map<number, number>();
    for (let round = 0; round < 20; round++) {
      const answers = await Promise.all(Array.from({ length: 50 }, () => api.put(`user/users/${alice}/notification/notifications_all/markread`)));
      for (const a of answers) statuses.set(a.status, (statuses.get(a.status) ?? 0) + 1);
    }
    expect(Object.fromEntries(statuses)).toEqual({ 200: 1000 });
  }, 180_000);
});
