import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aFewAtATime } from '../helpers/a-few-at-a-time.js';
import { Client, newApp, uid, type TestApp } from '../helpers/api.js';
import { spawnServer, type SpawnedServer } from '../helpers/spawn.js';
import { drain, join, makeRoom, say } from './helpers.js';
import { freshDataDir } from '../helpers/data-template.js';
import { dropDatabase, freshDatabase, onDatabase } from '../helpers/fresh-database.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A server of the describe block's own, sweeping every `idleSeconds` / 4. The sweeper ends idle
 * sessions of every application of its database: on Postgres, a database of its own.
 */
function sweepingServer(idleSeconds: number, name: string): { t: TestApp } {
  const own = {} as { t: TestApp };
  let server: SpawnedServer;
  let database: string | undefined;
  beforeAll(async () => {
    database = await freshDatabase(process.env['DATABASE_URL'], `${name}_${process.pid}`);
    server = await spawnServer({ SESSION_IDLE_SECONDS: String(idleSeconds), ...onDatabase(database) });
    own.t = await newApp({}, server.url);
  });
  afterAll(async () => {
    await server.stop();
    await dropDatabase(database);
  });
  return own;
}

describe('idle sessions expire (SESSION_IDLE_SECONDS=2)', () => {
  const own = sweepingServer(2, 'sessions');

  it('removes idle users with an exit event; touch and commands keep sessions alive; the switch turns it off', async () => {
    const { t } = own;
    const room = await makeRoom(t.api);
    const keepOn = await makeRoom(t.api, { enableautoexpiresessions: false });
    const idle = await join(t.api, room.id);
    const toucher = await join(t.api, room.id);
    const talker = await join(t.api, room.id);
    const stays = await join(t.api, keepOn.id);
    const deadline = Date.now() + 4500;
    while (Date.now() < deadline) {
      expect((await t.api.post(`chat/rooms/${room.id}/sessions/${toucher.user.userid}/touch`)).status).toBe(200);
      await say(t.api, room.id, talker.user.userid, 'still here');
      await sleep(500);
    }
    const refused = await t.api.post(`chat/rooms/${room.id}/command`, { userid: idle.user.userid, command: 'am I here?' });
    expect(refused.status).toBe(403);
    const seen = await drain(t.api, room.id, idle.eventscursor.cursor);
    expect(seen.events.filter((e) => e.eventtype === 'exit').map((e) => e.userid)).toEqual([idle.user.userid]);
    expect((await t.api.get(`chat/rooms/${room.id}`)).body.data.inroom).toBe(2);
    await say(t.api, room.id, toucher.user.userid, 'alive');
    await say(t.api, keepOn.id, stays.user.userid, 'never expires');
  }, 20_000);
});

describe('a sweep writes every active session, however many (SESSION_IDLE_SECONDS=40)', () => {
  const own = sweepingServer(40, 'sessions_many');

  // More talkers than one statement writes (1,000). The room keeps idle sessions, so only the
  // sweep's writes change `lastseen`: every talker's must move past its join, the silent one's not.
  it("moves 2,500 talkers' lastseen past their join, and not the silent one's", async () => {
    const { t } = own;
    const room = await makeRoom(t.api, { enableenterandexit: false, enableautoexpiresessions: false });
    const talkers = Array.from({ length: 2500 }, () => uid('t'));
    const silent = (await join(t.api, room.id)).user.userid as string;
    await aFewAtATime(talkers, 32, (userid) => join(t.api, room.id, userid));
    const lastSeen = async () => {
      const seen = new Map<string, string>();
      for (let cursor = ''; ; ) {
        const page = (await t.api.get(`chat/rooms/${room.id}/participants?limit=200&cursor=${cursor}`)).body.data;
        for (const p of page.participants) seen.set(p.user.userid, p.lastseen);
        if (!page.more) return seen;
        cursor = page.cursor;
      }
    };
    const joined = await lastSeen();
    expect(joined.size).toBe(talkers.length + 1);
    // A sweep every 10 s: the talk (2.5 s on a quiet machine) falls into one or two, so one writes more than 1,000.
    await aFewAtATime(talkers, 32, (userid) => say(t.api, room.id, userid, 'here'));
    const deadline = Date.now() + 25_000;
    let unmoved = talkers;
    while (unmoved.length > 0 && Date.now() < deadline) {
      await sleep(500);
      const now = await lastSeen();
      unmoved = talkers.filter((userid) => (now.get(userid) as string) <= (joined.get(userid) as string));
      expect(now.get(silent)).toBe(joined.get(silent));
    }
    expect(unmoved).toEqual([]);
  }, 60_000);
});

describe('subscriptions persist across restarts', () => {
  const dataDir = freshDataDir();
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('lists the same subscriptions and keeps the feed after the server restarts', async () => {
    let server = await spawnServer({ DATA_DIR: dataDir });
    const t = await newApp({}, server.url);
    const userid = uid('p');
    const room = await makeRoom(t.api, { enableenterandexit: false });
    const joined = await join(t.api, room.id, userid);
    await say(t.api, room.id, userid, 'before restart');
    await server.stop();
    server = await spawnServer({ DATA_DIR: dataDir });
    try {
      const api = new Client(server.url, t.appid, t.token);
      const subs = await api.get(`chat/user/${userid}/subscriptions`);
      expect(subs.body.data.subscriptions.map((s: { roomid: string }) => s.roomid)).toEqual([room.id]);
      await say(api, room.id, userid, 'after restart');
      expect((await drain(api, room.id, joined.eventscursor.cursor)).events.map((e) => e.body)).toEqual(['before restart', 'after restart']);
    } finally {
      await server.stop();
    }
  }, 60_000);
});
