/**
 * The notification statement alone: batches of notifications as a crowd's reactions leave them
 * (comment likes, replies, mentions; a chat like's is written in the like's own statement), each
 * handed a ~2.6 KB payload (a chat like's event with its target), written by each
 * checkout's own built `insertNotifications` into its own freshly migrated database, the
 * checkouts taking turns in one process. Prints, per checkout, the median CPU per batch of this
 * process (PGlite runs in it on the embedded default) and, on Postgres, of the database backend.
 *
 *   npm run bench:notify                                                    # embedded, this checkout
 *   CHECKOUTS=before=/path/to/old/checkout,after=. npm run bench:notify    # each built (npm run build)
 *   DATABASE_URL=postgres://… BATCH=32 ROUNDS=15 npm run bench:notify
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tombstoneView } from '../src/chat/views.js';
import { databaseCpuFrom } from './lib/cpu.js';
import { freshDatabase } from '../test/helpers/fresh-database.js';
import { checkoutsFromEnv } from './lib/checkouts.js';

const batchSize = Number(process.env['BATCH'] ?? 32);
const rounds = Number(process.env['ROUNDS'] ?? 15);
const BATCHES_PER_ROUND = 100;
const databaseUrl = process.env['DATABASE_URL'];
const checkouts = checkoutsFromEnv();

interface Checkout {
  name: string;
  db: unknown;
  /** Its database on Postgres; undefined on the embedded database. */
  url: string | undefined;
  insert(db: unknown, rows: unknown[]): Promise<unknown>;
  jsonOnce(value: unknown): string;
  close(): Promise<void>;
  ours: number[];
  database: number[];
}

async function open(name: string, root: string): Promise<Checkout> {
  const { openDatabase } = await import(`${root}/dist/db/client.js`);
  const { insertNotifications } = await import(`${root}/dist/notifications/insert.js`);
  const { jsonOnce } = await import(`${root}/dist/json-once.js`);
  const { createLogger } = await import(`${root}/dist/logger.js`);
  const url = await freshDatabase(databaseUrl, `notify_${name}`);
  const opened = await openDatabase({ databaseUrl: url, pooler: 'none', poolSize: 1, dataDir: mkdtempSync(join(tmpdir(), 'engage-bench-')), storageReserve: 1024 * 1024, log: createLogger('warn') });
  return { name, db: opened.db, url, insert: insertNotifications, jsonOnce, close: () => opened.close(), ours: [], database: [] };
}

let seq = 0;
const user = (userid: string, added: string) => ({
  kind: 'app.user',
  userid,
  handle: `Name${userid}`,
  handlelowercase: `name${userid}`,
  displayname: `Name ${userid}`,
  pictureurl: '',
  profileurl: '',
  role: 'user',
  customtags: [],
  banned: false,
  banexpires: null,
  shadowbanned: false,
  shadowbanexpires: null,
  muted: false,
  muteexpires: null,
  reports: [],
  added,
  whenmodified: added,
});
/** A chat event's view, shaped as published (a removed event's view, every field filled in). */
const chatEvent = (id: string, eventtype: string, body: string, by: string, extra: Record<string, unknown>) => {
  const added = new Date(Date.now() - seq).toISOString();
  return {
    ...tombstoneView(id, 'room-of-the-match'),
    body,
    originalbody: body,
    added,
    whenmodified: added,
    ts: Date.parse(added),
    eventtype,
    userid: by,
    user: user(by, added),
    deleted: false,
    active: true,
    ...extra,
  };
};

/** Fan `n`'s like of the goal, as published: its target lists the latest ten who liked it. */
function like(n: number) {
  const users = Array.from({ length: 10 }, (_, i) => ({ userid: `fan${n - i}`, handle: `Namefan${n - i}`, displayname: `Name fan${n - i}` }));
  const goal = chatEvent('goal-event', 'speech', 'GOAL! What a strike', 'author', { likecount: n, reactions: [{ type: 'like', count: n, users }] });
  return chatEvent(`like-${n}`, 'reaction', 'like', `fan${n}`, { replyto: goal });
}

/** A batch of notifications for the goal's author, each payload's JSON already made (for the room's push). */
function batch(checkout: Checkout): unknown[] {
  return Array.from({ length: batchSize }, () => {
    const n = seq++;
    const payload = like(n);
    checkout.jsonOnce(payload);
    const id = `n${String(n).padStart(12, '0')}`;
    return {
      id,
      appId: 'app',
      userId: 'author',
      type: 'reaction',
      eventType: 'reaction',
      entity: 'chat',
      containerId: 'room-of-the-match',
      containerCustomId: null,
      itemId: `like-${n}`,
      fromUserId: `fan${n}`,
      payload,
    };
  });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const gc = (globalThis as { gc?: () => void }).gc;

const opened: Checkout[] = [];
for (const { name, root } of checkouts) opened.push(await open(name, root));
for (let round = 0; round < rounds; round++) {
  for (const checkout of opened) {
    const batches = Array.from({ length: BATCHES_PER_ROUND + 5 }, () => batch(checkout));
    for (const rows of batches.slice(0, 5)) await checkout.insert(checkout.db, rows);
    gc?.();
    const ours = process.cpuUsage();
    const database = await databaseCpuFrom(checkout.url);
    for (const rows of batches.slice(5)) await checkout.insert(checkout.db, rows);
    const used = process.cpuUsage(ours);
    checkout.ours.push((used.user + used.system) / 1000 / BATCHES_PER_ROUND);
    checkout.database.push(((await database()) * 1000) / BATCHES_PER_ROUND);
  }
}
process.stdout.write(
  `\nnotifications_insert, ${batchSize} likes a batch, ${databaseUrl === undefined ? 'embedded' : 'postgres'}, median of ${rounds} rounds${gc === undefined ? ' (run with --expose-gc to leave out the collection of the batches made)' : ''}\n`,
);
process.stdout.write(`checkout        server CPU ms/batch  µs/like${databaseUrl === undefined ? '' : '  db CPU ms/batch  µs/like'}\n`);
for (const c of opened) {
  const ours = median(c.ours);
  const db = median(c.database);
  const cells = [c.name.padEnd(15), ours.toFixed(2).padStart(19), ((ours * 1000) / batchSize).toFixed(0).padStart(8)];
  if (databaseUrl !== undefined) cells.push(db.toFixed(2).padStart(16), ((db * 1000) / batchSize).toFixed(0).padStart(8));
  process.stdout.write(`${cells.join(' ')}\n`);
  await c.close();
}
