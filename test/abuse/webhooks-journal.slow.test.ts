import { PGlite } from '@electric-sql/pglite';
import { rmSync } from 'node:fs';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { EMBEDDED_OPTIONS } from '../../src/db/embedded.js';
import { newApp, uid } from '../helpers/api.js';
import { spawnServer, type SpawnedServer } from '../helpers/spawn.js';
import { startReceiver, type Receiver } from '../webhooks/receiver.js';
import { freshDataDir } from '../helpers/data-template.js';

/**
 * The webhook journal (docs/webhooks.md, postpublish) costs nothing to an application without
 * an enabled postpublish hook, and a hook created while events are published journals every
 * event published after it.
 */
const LOOPS = 10;

let server: SpawnedServer | undefined;
/** Every server the suite started: each test starts its own, and all are stopped at the end. */
const servers: SpawnedServer[] = [];
let receiver: Receiver | undefined;
const dataDirs: string[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  await receiver?.close();
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
});

async function startServer(env: Record<string, string> = {}): Promise<{ server: SpawnedServer; dataDir: string }> {
  const dataDir = freshDataDir();
  dataDirs.push(dataDir);
  server = await spawnServer({ DATA_DIR: dataDir, ...env });
  servers.push(server);
  return { server, dataDir };
}

/** The app's webhook_journal rows: read from Postgres (DATABASE_URL) beside the server, or from the embedded database once its server has stopped. */
async function journalRows(appId: string, dataDir: string): Promise<number> {
  const query = 'select count(*)::int as n from webhook_journal where app_id = $1';
  const url = process.env['DATABASE_URL'];
  if (url !== undefined && url !== '') {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    return (await client.query<{ n: number }>(query, [appId]).finally(() => client.end())).rows[0]?.n ?? -1;
  }
  await server?.stop();
  server = undefined;
  const db = new PGlite(dataDir, EMBEDDED_OPTIONS);
  return (await db.query<{ n: number }>(query, [appId]).finally(() => db.close())).rows[0]?.n ?? -1;
}

describe('the webhook journal', () => {
  it('delivers every chat message posted after a hook’s creation was answered, while messages were being posted', async () => {
    receiver = await startReceiver(() => 200);
    // Loops as fast as the server answers, past the per-user chat budget.
    const { server } = await startServer({ RATE_LIMITS: 'off' });
    const { api } = await newApp({}, server.url);
    const roomid = (await api.post('chat/rooms', { name: uid('room'), enableenterandexit: false })).body.data.id as string;
    const users = Array.from({ length: LOOPS }, (_, w) => `journaluser${w}`);
    for (const u of users) expect((await api.post(`chat/rooms/${roomid}/join`, { userid: u })).status).toBe(200);

    let hookAnsweredAt = Infinity;
    let stopAt = Infinity;
    /** Messages whose request was sent after the hook's creation was answered, and answered 200. */
    const owed: string[] = [];
    let before = 0;
    const loop = async (userid: string) => {
      for (let i = 0; Date.now() < stopAt; i++) {
        const sentAt = Date.now();
        const res = await api.post(`chat/rooms/${roomid}/command`, { userid, command: `flowing ${userid} ${i}` });
        expect(res.status).toBe(200);
        if (sentAt > hookAnsweredAt) owed.push(res.body.data.speech.id as string);
        else before += 1;
      }
    };
    const loops = Promise.all(users.map(loop));
    await new Promise((r) => setTimeout(r, 1000));
    const hook = { label: 'flowing', url: receiver.url, enabled: true, type: 'postpublish', events: ['chatspeech'] };
    expect((await api.post('webhook/hooks', hook)).status).toBe(200);
    hookAnsweredAt = Date.now();
    stopAt = hookAnsweredAt + 1500;
    await loops;
    expect(before).toBeGreaterThan(0);
    expect(owed.length).toBeGreaterThan(20);

    const r = receiver;
    const delivered = () => new Set(r.received.map((x) => (x.body.data as { id: string }).id));
    const deadline = Date.now() + 30_000;
    let missing = owed.filter((id) => !delivered().has(id));
    while (missing.length > 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      missing = owed.filter((id) => !delivered().has(id));
    }
    expect(missing, `${missing.length} of ${owed.length} messages posted after the hook was created never reached it`).toEqual([]);
  }, 90_000);

  it('writes no journal row for the chat events of an application without an enabled postpublish hook', async () => {
    const r = await startReceiver(() => 200);
    try {
      const { server, dataDir } = await startServer();
      const { api, appid } = await newApp({}, server.url);
      // Hooks that do not journal: a disabled postpublish hook and an enabled prepublish one.
      expect((await api.post('webhook/hooks', { label: 'off', url: r.url, enabled: false, type: 'postpublish', events: ['chatspeech', 'chatenter'] })).status).toBe(200);
      expect((await api.post('webhook/hooks', { label: 'pre', url: r.url, enabled: true, type: 'prepublish', events: ['chatspeech'] })).status).toBe(200);
      const roomid = (await api.post('chat/rooms', { name: uid('room'), enableenterandexit: true })).body.data.id as string;
      for (let i = 0; i < 20; i++) {
        const userid = `plain${i}`;
        expect((await api.post(`chat/rooms/${roomid}/join`, { userid })).status).toBe(200);
        expect((await api.post(`chat/rooms/${roomid}/command`, { userid, command: `no journal ${i}` })).status).toBe(200);
      }
      // Read within the journal sweep's grace (10 s), before the sweep would take rows away.
      expect(await journalRows(appid, dataDir)).toBe(0);
    } finally {
      await r.close();
    }
  }, 90_000);
});
