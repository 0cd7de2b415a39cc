import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { Client, newApp, uid } from '../helpers/api.js';
import { spawnServer, type SpawnedServer } from '../helpers/spawn.js';
import { allPages } from '../comments/helpers.js';
import { freshDataDir } from '../helpers/data-template.js';

/**
 * Nothing acknowledged is lost: concurrent chat posts (and some comments and votes) against a
 * server that is killed with SIGKILL mid-load; restarted on the same data (the same DATA_DIR, or
 * the same DATABASE_URL), every write that was answered 200 is stored, exactly once.
 */
const LOAD_MS = 3000;
const WORKERS = 16;

let server: SpawnedServer | undefined;
const dataDir = freshDataDir();
afterAll(async () => {
  await server?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

interface Acked {
  chat: string[];
  comments: string[];
  voters: string[];
}

/** Posts until the server is gone; returns what was answered 200. */
async function load(api: Client, roomid: string, users: string[], conversationid: string, pollid: string, choiceid: string, stopAt: number): Promise<Acked> {
  const acked: Acked = { chat: [], comments: [], voters: [] };
  const worker = async (w: number) => {
    for (let i = 0; ; i++) {
      try {
        if (i % 10 === 3) {
          const body = `k9 comment ${w}-${i}`;
          if ((await api.post(`comment/conversations/${conversationid}/comments`, { userid: users[w], body })).status === 200) acked.comments.push(body);
        } else if (i % 10 === 7) {
          const voter = `voter-${w}-${i}`;
          if ((await api.post(`poll/poll/${pollid}/response`, { userid: voter, choiceid })).status === 200) acked.voters.push(voter);
        } else {
          const command = `k9 chat ${w}-${i}`;
          if ((await api.post(`chat/rooms/${roomid}/command`, { userid: users[w], command })).status === 200) acked.chat.push(command);
        }
      } catch {
        // The server is gone: this write was never acknowledged.
        if (Date.now() > stopAt) return;
        await new Promise((r) => setTimeout(r, 50));
      }
      if (Date.now() > stopAt + 5000) return;
    }
  };
  await Promise.all(Array.from({ length: WORKERS }, (_, w) => worker(w)));
  return acked;
}

describe('kill -9 under concurrent load', () => {
  it('keeps every acknowledged write, exactly once, across the restart', async () => {
    server = await spawnServer({ DATA_DIR: dataDir });
    const { api: first, appid, token } = await newApp({}, server.url);
    const room = (await first.post('chat/rooms', { name: uid('room') })).body.data;
    const users = Array.from({ length: WORKERS }, (_, w) => `k9user${w}`);
    for (const u of users) expect((await first.post(`chat/rooms/${room.id}/join`, { userid: u })).status).toBe(200);
    const conversationid = (await first.post('comment/conversations', { conversationid: uid('conv'), property: 'p', moderation: 'post' })).body.data.conversationid;
    const pollid = (await first.post('poll/poll/create', { title: 'k9' })).body.data.id;
    const choiceid = (await first.post(`poll/poll/${pollid}/choice`, { choices: [{ title: 'a' }] })).body.data[0].id;
    const start = (await first.get(`chat/rooms/${room.id}/updates`)).body.data.cursor as string;

    const stopAt = Date.now() + LOAD_MS;
    const running = load(first, room.id, users, conversationid, pollid, choiceid, stopAt);
    await new Promise((r) => setTimeout(r, LOAD_MS));
    await server.kill();
    const acked = await running;
    expect(acked.chat.length).toBeGreaterThan(50);

    server = await spawnServer({ DATA_DIR: dataDir });
    const api = new Client(server.url, appid, token);

    const chat: string[] = [];
    for (let cursor = start; ; ) {
      const page = await api.get(`chat/rooms/${room.id}/updates?cursor=${cursor}&limit=500`);
      expect(page.status).toBe(200);
      chat.push(...page.body.data.events.filter((e: { eventtype: string }) => e.eventtype === 'speech').map((e: { body: string }) => e.body));
      if (page.body.data.cursor === cursor) break;
      cursor = page.body.data.cursor;
    }
    expectExactlyOnce(chat, acked.chat);

    const comments = (await allPages(api, `comment/conversations/${conversationid}/comments`, 'limit=100&sort=oldest')).map((c: { body: string }) => c.body);
    expectExactlyOnce(comments, acked.comments);

    const responses = (await allPages(api, `poll/poll/${pollid}/responses`, 'limit=200', 'responses')).map((r: { userid: string }) => r.userid);
    expectExactlyOnce(responses, acked.voters);
    expect((await api.get(`poll/poll/${pollid}`)).body.data.totalresponses).toBe(responses.length);
  }, 240_000);
});

/** Every acknowledged item is stored once; nothing is stored twice (unacknowledged writes may or may not be there). */
function expectExactlyOnce(stored: string[], acked: string[]): void {
  const counts = new Map<string, number>();
  for (const s of stored) counts.set(s, (counts.get(s) ?? 0) + 1);
  expect([...counts].filter(([, n]) => n > 1)).toEqual([]);
  expect(acked.filter((a) => !counts.has(a))).toEqual([]);
}
