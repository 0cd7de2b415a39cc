// Response bodies are arbitrary JSON; tests read them loosely and assert on the values.
/* eslint-disable @typescript-eslint/no-explicit-any */
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { Client, newApp, uid } from '../helpers/api.js';
import { spawnServer, type SpawnedServer } from '../helpers/spawn.js';
import { freshDataDir } from '../helpers/data-template.js';

/**
 * A crowd joining one room and liking one event while the server is killed with SIGKILL; after
 * a restart on the same data (DATA_DIR, or the same DATABASE_URL), every acknowledged join and
 * like is there exactly once, and the counts equal what is stored (none counted twice or lost),
 * as is each like's notification to the event's author.
 */
/** The server is killed once this many joins were acknowledged (the crowd still going), however slow the machine. */
const KILL_AFTER = 80;
const WORKERS = 24;

let server: SpawnedServer | undefined;
const dataDir = freshDataDir();
afterAll(async () => {
  await server?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

async function pages(api: Client, path: string, items: string): Promise<any[]> {
  const out: any[] = [];
  for (let cursor = ''; ; ) {
    const page = (await api.get(`${path}${path.includes('?') ? '&' : '?'}limit=200&cursor=${cursor}`)).body.data;
    out.push(...page[items]);
    if (!page.more) return out;
    cursor = page.cursor;
  }
}

describe('kill -9 in the middle of a crowd', () => {
  it('keeps every acknowledged join and like exactly once, and the counts match what is stored', async () => {
    server = await spawnServer({ DATA_DIR: dataDir, RATE_LIMITS: 'off' });
    const { api: first, appid, token } = await newApp({}, server.url);
    const room = (await first.post('chat/rooms', { name: uid('room'), enableenterandexit: false })).body.data;
    const author = `author${Date.now()}`;
    await first.post(`chat/rooms/${room.id}/join`, { userid: author });
    const goal = (await first.post(`chat/rooms/${room.id}/command`, { userid: author, command: 'GOAL' })).body.data.speech;

    const joined: string[] = [];
    const liked: string[] = [];
    let killedAt = Infinity;
    const worker = async (w: number) => {
      for (let i = 0; Date.now() < killedAt + 5000; i++) {
        const fan = `fan-${w}-${i}`;
        try {
          if ((await first.post(`chat/rooms/${room.id}/join`, { userid: fan })).status !== 200) continue;
          joined.push(fan);
          if ((await first.post(`chat/rooms/${room.id}/events/${goal.id}/react`, { userid: fan, reaction: 'like', reacted: true })).status === 200) liked.push(fan);
        } catch {
          // The server is gone: this write was never acknowledged.
          if (Date.now() > killedAt) return;
        }
      }
    };
    const running = Promise.all(Array.from({ length: WORKERS }, (_, w) => worker(w)));
    while (joined.length < KILL_AFTER) await new Promise((r) => setTimeout(r, 20));
    killedAt = Date.now();
    await server.kill();
    await running;
    expect(liked.length).toBeGreaterThan(20);

    server = await spawnServer({ DATA_DIR: dataDir, RATE_LIMITS: 'off' });
    const api = new Client(server.url, appid, token);
    const participants = (await pages(api, `chat/rooms/${room.id}/participants`, 'participants')).map((p) => p.user.userid as string);
    expect(new Set(participants).size).toBe(participants.length);
    for (const fan of joined) expect(participants).toContain(fan);
    expect((await api.get(`chat/rooms/${room.id}`)).body.data.inroom).toBe(participants.length);

    const reactors = (await pages(api, `chat/rooms/${room.id}/events/${goal.id}/reactions?reaction=like`, 'users')).map((u) => u.userid as string);
    expect(new Set(reactors).size).toBe(reactors.length);
    for (const fan of liked) expect(reactors).toContain(fan);
    const event = (await api.get(`chat/rooms/${room.id}/events/${goal.id}`)).body.data;
    expect(event.likecount).toBe(reactors.length);
    expect(event.reactions[0].count).toBe(reactors.length);
    // A like's notification commits with it: the author holds one for each stored like, none lost, none twice.
    const notified = (await pages(api, `user/users/${author}/notification/listnotifications?includeread=true`, 'notifications'))
      .filter((n) => n.eventtype === 'chatreaction')
      .map((n) => n.fromuserid as string);
    expect(new Set(notified).size).toBe(notified.length);
    expect(notified.sort()).toEqual([...reactors].sort());

    // The restarted server counts on from there.
    await api.post(`chat/rooms/${room.id}/join`, { userid: 'late-fan' });
    await api.post(`chat/rooms/${room.id}/events/${goal.id}/react`, { userid: 'late-fan', reaction: 'like', reacted: true });
    expect((await api.get(`chat/rooms/${room.id}`)).body.data.inroom).toBe(participants.length + 1);
    expect((await api.get(`chat/rooms/${room.id}/events/${goal.id}`)).body.data.likecount).toBe(reactors.length + 1);
  }, 120_000);
});
