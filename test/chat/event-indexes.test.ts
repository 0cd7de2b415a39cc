import { PGlite } from '@electric-sql/pglite';
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EMBEDDED_OPTIONS } from '../../src/db/embedded.js';
import { newApp, uid } from '../helpers/api.js';
import { freshDataDir } from '../helpers/data-template.js';
import { spawnServer } from '../helpers/spawn.js';
import { join, makeRoom, say } from './helpers.js';

/**
 * Each index of chat_events is written by every event (migration 0017 keeps two fewer): the
 * look-ups they serve still find their rows by index, and events that are no reply keep no entry
 * in the index of parents. Checked on the embedded database a server left behind.
 */
const dataDir = freshDataDir();
let db: PGlite;
const author = uid('author');
let roomId = '';
let rootId = '';

beforeAll(async () => {
  const server = await spawnServer({ DATA_DIR: dataDir, DATABASE_URL: '', REDIS_URL: '', RATE_LIMITS: 'off' });
  try {
    const { api } = await newApp({}, server.url);
    roomId = (await makeRoom(api, { enableenterandexit: false })).id;
    const replier = uid('replier');
    await join(api, roomId, author);
    await join(api, roomId, replier);
    for (let i = 0; i < 20; i++) rootId = (await say(api, roomId, author, `message ${i}`)).speech.id;
    expect((await api.post(`chat/rooms/${roomId}/events/${rootId}/reply`, { userid: replier, body: 'a reply' })).status).toBe(200);
  } finally {
    await server.stop();
  }
  db = new PGlite(dataDir, EMBEDDED_OPTIONS);
  // The table is small: without this the planner would rightly read it whole.
  await db.exec('set enable_seqscan = off; set enable_bitmapscan = off; set plan_cache_mode = force_generic_plan');
}, 60_000);

afterAll(async () => {
  await db?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function planOf(statement: string, values: unknown[]): Promise<string> {
  await db.query(`prepare lookup as ${statement}`);
  try {
    const plan = await db.query<{ 'QUERY PLAN': string }>(`explain execute lookup(${values.map((v) => `'${String(v)}'`).join(', ')})`);
    return plan.rows.map((r) => r['QUERY PLAN']).join('\n');
  } finally {
    await db.query('deallocate lookup');
  }
}

describe('chat_events indexes', () => {
  it("a user's events in a room and in the app are both found by chat_events_user_idx; app_user_idx is gone", async () => {
    expect(await planOf('select id from chat_events where room_id = $1 and user_id = $2 and seq < $3 order by seq desc limit 50', [roomId, author, 1_000])).toMatch(
      /Index Scan Backward using chat_events_user_idx[\s\S]*Index Cond: \(\(user_id = \$2\) AND \(room_id = \$1\) AND \(seq < \$3\)\)/,
    );
    expect(await planOf('select distinct room_id from chat_events where app_id = $1 and user_id = $2', ['app', author])).toMatch(/using chat_events_user_idx[\s\S]*Index Cond: \(user_id = \$2\)/);
    const names = (await db.query<{ indexname: string }>(`select indexname from pg_indexes where tablename = 'chat_events'`)).rows.map((r) => r.indexname);
    expect(names).not.toContain('chat_events_app_user_idx');
  });

  it('a look-up by parent uses chat_events_parent_idx, which holds the replies only', async () => {
    expect(await planOf('select id from chat_events where parent_id = $1 limit 1', [rootId])).toMatch(/Index Scan using chat_events_parent_idx/);
    await db.exec('analyze chat_events');
    const entries = await db.query<{ relname: string; reltuples: number }>(`select relname, reltuples from pg_class where relname in ('chat_events_parent_idx', 'chat_events_feed_idx')`);
    const count = (name: string) => entries.rows.find((r) => r.relname === name)?.reltuples;
    // Two joins and 20 messages and a reply in the feed; one entry, the reply's, among parents.
    expect(count('chat_events_feed_idx')).toBeGreaterThanOrEqual(21);
    expect(count('chat_events_parent_idx')).toBe(1);
  });
});
