import { rmSync } from 'node:fs';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { effectsInForce } from '../../src/chat/store/effects.js';
import { feedHeads, findRoomsAnyApp, findRoomsByCustomId, insertRoom } from '../../src/chat/store/rooms.js';
import { openDatabase, preparedText, rows, type Database } from '../../src/db/client.js';
import { createLogger } from '../../src/logger.js';
import { freshDataDir } from '../helpers/data-template.js';
import { dropDatabase, freshDatabase } from '../helpers/fresh-database.js';

/**
 * Named statements that read rows by an array of keys keep one plan (src/db/arrays.ts,
 * `plannedOnce`). On a grown table, a statement given its array as a plain parameter is planned
 * again on every call of one key: its custom plan of one key costs less than the generic plan's
 * guess of ten. Checked on a table of 20,000 rooms, on the database the tests run on, where the
 * prepared statements of the connection the calls used are counted.
 */
const ROOMS = 20_000;
const CALLS = 12;
const APP = 'planned-once-app';
const dataDir = freshDataDir();
let databaseUrl: string | undefined;
let database: Database;

beforeAll(async () => {
  databaseUrl = await freshDatabase(process.env['DATABASE_URL'] || undefined, 'planned_once');
  database = await openDatabase({ databaseUrl, pooler: 'none', poolSize: 1, dataDir, sharedBuffers: 32 * 1024 * 1024, storageReserve: 0, log: createLogger('silent') });
  const { db } = database;
  await insertRoom(db, { id: 'seed', appId: APP, name: 'seed', customId: 'seed' });
  await db.execute(sql`insert into chat_rooms (id, app_id, name, custom_id) select 'room-' || g, ${APP}, 'room ' || g, 'custom-' || g from generate_series(1, ${ROOMS}) g`);
  await db.execute(sql`analyze chat_rooms`);
}, 60_000);

afterAll(async () => {
  await database?.close();
  await dropDatabase(databaseUrl);
  rmSync(dataDir, { recursive: true, force: true });
});

interface Plans {
  name: string;
  generic_plans: number;
  custom_plans: number;
}

async function plansOf(name: string): Promise<Plans> {
  const [found] = await rows<Plans>(database.db, sql`select name, generic_plans::int, custom_plans::int from pg_prepared_statements where name = ${name}`);
  if (found === undefined) throw new Error(`no prepared statement ${name}`);
  return found;
}

/** The rooms the calls read, spread over the table. */
const roomNumber = (i: number) => 1 + ((i * 7_919) % ROOMS);
const roomId = (i: number) => `room-${roomNumber(i)}`;

describe('named reads by an array of keys', () => {
  it('a lookup with its array as a plain parameter is planned again on every call of one key on this table', async () => {
    for (let i = 0; i < CALLS; i++) await preparedText(database.db, 'planned_once_contrast', 'select id from chat_rooms where id = any($1::text[])', [`{${roomId(i)}}`]);
    expect(await plansOf('planned_once_contrast')).toEqual({ name: 'planned_once_contrast', generic_plans: 0, custom_plans: CALLS });
  });

  // Each read, what it finds of one key (undefined: not counted; the rooms have no effects), and a call of it.
  it.each<[string, number | undefined, (i: number) => Promise<unknown[]>]>([
    ['chat_rooms_by_id', 1, (i) => findRoomsAnyApp(database.db, [roomId(i)])],
    ['chat_rooms_by_custom_id', 1, (i) => findRoomsByCustomId(database.db, APP, [`custom-${roomNumber(i)}`])],
    ['chat_feed_heads', 1, (i) => feedHeads(database.db, [roomId(i)])],
    ['chat_room_effects_in_force', undefined, (i) => effectsInForce(database.db, [roomId(i)])],
  ])('%s keeps its generic plan after the first five calls', async (name, rowsFound, call) => {
    // One at a time: on Postgres the pool then hands each call the connection the last one gave back, whose statements are counted.
    for (let i = 0; i < CALLS; i++) {
      const found = await call(i);
      if (rowsFound !== undefined) expect(found).toHaveLength(rowsFound);
    }
    expect(await plansOf(name)).toEqual({ name, generic_plans: CALLS - 5, custom_plans: 5 });
  });
});
