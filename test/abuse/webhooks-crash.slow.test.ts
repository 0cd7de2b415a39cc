import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { Client, newApp, uid } from '../helpers/api.js';
import { spawnServer, type SpawnedServer } from '../helpers/spawn.js';
import { startReceiver, type Receiver } from '../webhooks/receiver.js';
import { freshDataDir } from '../helpers/data-template.js';

/**
 * Webhooks are at-least-once across a kill -9: loops post chat messages, comments and comment
 * reactions to an app with a postpublish hook, the server is killed with SIGKILL mid-load and
 * started again on the same data (DATA_DIR, or DATABASE_URL when set), and every event that
 * was answered 200 reaches the receiver.
 */
const LOOPS = 20;
const LOAD_MS = 2500;

let server: SpawnedServer | undefined;
let receiver: Receiver | undefined;
const dataDir = freshDataDir();
afterAll(async () => {
  await server?.stop();
  await receiver?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/**
 * Posts until the server is gone; returns the events answered 200 as `{type} {id}`. A reaction's
 * delivery names the comment, not who reacted: it counts as `commentreaction {comment id}`.
 */
async function load(api: Client, roomid: string, conversationid: string, users: string[], stopAt: number, kill: () => void): Promise<string[]> {
  const acked: string[] = [];
  // Killed the moment an answer arrives after stopAt: the events just acknowledged are the newest the server had.
  const ack = (event: string) => {
    acked.push(event);
    if (Date.now() >= stopAt) kill();
  };
  let comment: string | undefined;
  const loop = async (w: number) => {
    const userid = users[w] as string;
    for (let i = 0; Date.now() < stopAt + 5000; i++) {
      try {
        if (i % 8 === 3) {
          const res = await api.post(`comment/conversations/${conversationid}/comments`, { userid, body: `crash comment ${w}-${i}` });
          if (res.status === 200) {
            ack(`commentpublished ${res.body.data.id}`);
            comment = res.body.data.id;
          }
        } else if (i % 8 === 5 && comment !== undefined) {
          const target = comment;
          const res = await api.post(`comment/conversations/${conversationid}/comments/${target}/react`, { userid, reaction: 'like', reacted: true });
          if (res.status === 200) ack(`commentreaction ${target}`);
        } else {
          const res = await api.post(`chat/rooms/${roomid}/command`, { userid, command: `crash chat ${w}-${i}` });
          if (res.status === 200) ack(`chatspeech ${res.body.data.speech.id}`);
        }
      } catch {
        // The server is gone: this write was never acknowledged.
        if (Date.now() > stopAt) return;
        await new Promise((r) => setTimeout(r, 50));
      }
    }
  };
  await Promise.all(users.map((_, w) => loop(w)));
  return acked;
}

/** Acknowledged events delivered fewer times than acknowledged (at-least-once allows more). */
function undelivered(acked: string[], r: Receiver): string[] {
  const count = new Map<string, number>();
  for (const { body } of r.received) {
    const key = `${body.type} ${(body.data as { id: string }).id}`;
    count.set(key, (count.get(key) ?? 0) + 1);
  }
  return acked.filter((key) => {
    const left = count.get(key) ?? 0;
    count.set(key, left - 1);
    return left <= 0;
  });
}

describe('webhooks across kill -9', () => {
  it('delivers every acknowledged event at least once after the restart', async () => {
    receiver = await startReceiver(() => 200);
    server = await spawnServer({ DATA_DIR: dataDir });
    const { api: first, appid, token } = await newApp({}, server.url);
    const hook = { label: 'crash', url: receiver.url, enabled: true, type: 'postpublish', events: ['chatspeech', 'commentpublished', 'commentreaction'] };
    expect((await first.post('webhook/hooks', hook)).status).toBe(200);
    const roomid = (await first.post('chat/rooms', { name: uid('room'), enableenterandexit: false })).body.data.id as string;
    const users = Array.from({ length: LOOPS }, (_, w) => `crashuser${w}`);
    for (const u of users) expect((await first.post(`chat/rooms/${roomid}/join`, { userid: u })).status).toBe(200);
    const conversationid = (await first.post('comment/conversations', { conversationid: uid('conv'), property: 'p', moderation: 'post' })).body.data.conversationid as string;

    const killed = server;
    let killing: Promise<void> | undefined;
    const acked = await load(first, roomid, conversationid, users, Date.now() + LOAD_MS, () => {
      killing ??= killed.kill();
    });
    await killing;
    expect(acked.length).toBeGreaterThan(20);

    server = await spawnServer({ DATA_DIR: dataDir });
    const second = new Client(server.url, appid, token);
    expect((await second.get('webhook/hooks')).status).toBe(200);
    const deadline = Date.now() + 40_000;
    let missing = undelivered(acked, receiver);
    while (missing.length > 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 500));
      missing = undelivered(acked, receiver);
    }
    expect(missing, `${missing.length} of ${acked.length} acknowledged events never reached the hook`).toEqual([]);
  }, 180_000);
});

describe('webhooks of events published later', () => {
  it('delivers a chat message and a comment approved from pre-moderation once, and the journal sweep sends them no second time', async () => {
    const r = await startReceiver(() => 200);
    try {
      const { api } = await newApp();
      const hook = { label: 'later', url: r.url, enabled: true, type: 'postpublish', events: ['chatspeech', 'commentpublished'] };
      expect((await api.post('webhook/hooks', hook)).status).toBe(200);
      const roomid = (await api.post('chat/rooms', { name: uid('room'), moderation: 'pre', enableenterandexit: false })).body.data.id as string;
      expect((await api.post(`chat/rooms/${roomid}/join`, { userid: 'held' })).status).toBe(200);
      const held = (await api.post(`chat/rooms/${roomid}/command`, { userid: 'held', command: 'approve me' })).body.data.speech.id as string;
      const conversationid = (await api.post('comment/conversations', { conversationid: uid('conv'), property: 'p', moderation: 'pre' })).body.data.conversationid as string;
      const comment = (await api.post(`comment/conversations/${conversationid}/comments`, { userid: 'held', displayname: 'Held', body: 'approve me too' })).body.data.id as string;
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(r.received).toHaveLength(0);

      expect((await api.post(`chat/moderation/queues/events/${held}/applydecision`, { approve: true })).status).toBe(200);
      expect((await api.post(`comment/moderation/queues/comments/${comment}/applydecision`, { approve: true })).status).toBe(200);
      await r.waitFor(2);
      // Past the sweep's 10 s grace: an approval's journal row was settled with its delivery, not left to be sent again.
      await new Promise((resolve) => setTimeout(resolve, 14_000));
      expect(r.received.map((x) => `${x.body.type} ${x.body.data.id}`).sort()).toEqual([`chatspeech ${held}`, `commentpublished ${comment}`].sort());
    } finally {
      await r.close();
    }
  }, 60_000);
});
