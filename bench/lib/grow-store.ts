import { createHash } from 'node:crypto';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { EMBEDDED_OPTIONS } from '../../src/db/embedded.js';
import type { BenchApp } from './app.js';
import { joinSpeakers } from './limits.js';

/**
 * How big a store to grow: events in one room, articles, users of the app's pool. An article is
 * what a newsroom publishes: a public room of ARTICLE_ITEMS events, a conversation of
 * ARTICLE_ITEMS comments and a poll of ARTICLE_ITEMS choices with a response on each.
 */
export interface StoreSize {
  history: number;
  rooms: number;
  users: number;
}

/** Events, comments, choices (and responses) of each grown article. */
export const ARTICLE_ITEMS = 3;

/** The app and room the rows go into (made through the API first, so every other row is the server's own). */
export interface GrowTarget {
  appId: string;
  roomId: string;
  /** Users the bulk events are spread over (joined through the API). */
  speakers: string[];
}

/** A room of `app` to grow, named `name`, and the speakers its bulk events are spread over (joined through the API, before the server stops for the growing). */
export async function growTarget(app: BenchApp, name: string): Promise<GrowTarget> {
  const room = await app.call<{ id: string }>('POST', 'chat/rooms', { name, enableenterandexit: false });
  return { appId: app.appid, roomId: room.id, speakers: await joinSpeakers(app, room.id, 200) };
}

/** A word only row `i` of its kind carries: what a search for one message, one fan, one room looks for. */
export const rareWord = (kind: 'event' | 'user' | 'room', i: number) => `${kind[0]}${createHash('md5').update(String(i)).digest('hex').slice(0, 7)}`;

/** The ids of grown article `i` (1-based) and of grown user `i`, for the reads of one that nobody read before. */
export const grown = {
  room: (i: number) => `grown-${String(i).padStart(9, '0')}`,
  roomCustomId: (i: number) => `article-${i}`,
  conversation: (i: number) => `grown-conversation-${i}`,
  conversationCustomId: (i: number) => `article-${i}-comments`,
  poll: (i: number) => `grown-poll-${i}`,
  user: (i: number) => `grown${i}`,
};

/** Rows a batch statement inserts at once (PGlite holds a statement's work in its WebAssembly memory). */
const BATCH = 50_000;

const q = (s: string) => `'${s.replaceAll("'", "''")}'`;

/** A time-ordered id as src/ids.ts makes them (ids sort as time), from SQL expressions for its milliseconds and a distinct tail. */
const idOf = (ms: string, tail: string) => `substr(lpad(to_hex(${ms}), 12, '0'), 1, 8) || '-' || substr(lpad(to_hex(${ms}), 12, '0'), 9, 4) || '-7000-8000-' || lpad(to_hex(${tail}), 12, '0')`;

/** `make` for each batch of rows 1..total. */
function batches(total: number, make: (from: number, to: number) => string): string[] {
  const out: string[] = [];
  for (let from = 1; from <= total; from += BATCH) out.push(make(from, Math.min(total, from + BATCH - 1)));
  return out;
}

/** The room's HISTORY events, numbered after its last seq, with ids and times before anything made after. */
function history(t: GrowTarget, size: StoreSize, first: number): string[] {
  const speakers = `array[${t.speakers.map(q).join(',')}]`;
  return [
    ...batches(
      size.history,
      (from, to) => `insert into chat_events (id, app_id, room_id, seq, event_type, user_id, body, original_body, ts, added, when_modified)
      select ${idOf(`${first} + i`, 'i')}, ${q(t.appId)}, ${q(t.roomId)}, r.last_seq + i, 'speech', (${speakers})[1 + i % ${t.speakers.length}],
        'fan message ' || i || ' e' || substr(md5(i::text), 1, 7), '', ${first} + i, to_timestamp((${first} + i) / 1000.0), to_timestamp((${first} + i) / 1000.0)
      from generate_series(${from}, ${to}) i, chat_rooms r where r.id = ${q(t.roomId)}`,
    ),
    `update chat_rooms set last_seq = last_seq + ${size.history} where id = ${q(t.roomId)}`,
  ];
}

/** Each article's room (with its custom id) and its events, by grown users. */
function articleRooms(t: GrowTarget, size: StoreSize, first: number): string[] {
  return [
    ...batches(
      size.rooms,
      (from, to) => `insert into chat_rooms (id, app_id, custom_id, name, last_seq, last_message_at, added, when_modified)
      select 'grown-' || lpad(i::text, 9, '0'), ${q(t.appId)}, 'article-' || i, 'Room ' || i || ' r' || substr(md5(i::text), 1, 7), ${ARTICLE_ITEMS}, now(), now(), now()
      from generate_series(${from}, ${to}) i`,
    ),
    ...batches(
      size.rooms * ARTICLE_ITEMS,
      (from, to) => `insert into chat_events (id, app_id, room_id, seq, event_type, user_id, body, original_body, ts, added, when_modified)
      select ${idOf(`${first} + ${size.history} + n`, `${size.history} + n`)}, ${q(t.appId)}, 'grown-' || lpad((1 + (n - 1) / ${ARTICLE_ITEMS})::text, 9, '0'), 1 + (n - 1) % ${ARTICLE_ITEMS},
        'speech', 'grown' || (1 + n % ${size.users}), 'reader message ' || n, '', ${first} + ${size.history} + n,
        to_timestamp((${first} + ${size.history} + n) / 1000.0), to_timestamp((${first} + ${size.history} + n) / 1000.0)
      from generate_series(${from}, ${to}) n`,
    ),
  ];
}

/** Each article's conversation (with its custom id) and its top-level comments, by grown users. */
function articleConversations(t: GrowTarget, size: StoreSize, first: number): string[] {
  const at = (n: string) => `to_timestamp((${first} + ${n}) / 1000.0)`;
  return [
    ...batches(
      size.rooms,
      (from, to) => `insert into comment_conversations (key, app_id, conversation_id, custom_id, property, moderation, title, comment_count, added, when_modified)
      select 'grown-' || i, ${q(t.appId)}, 'grown-conversation-' || i, 'article-' || i || '-comments', 'news', 'post', 'Article ' || i, ${ARTICLE_ITEMS}, ${at('i')}, ${at('i')}
      from generate_series(${from}, ${to}) i`,
    ),
    ...batches(
      size.rooms * ARTICLE_ITEMS,
      (from, to) => `insert into comments (id, app_id, conversation_key, user_id, body, original_body, added, modified)
      select ${idOf(`${first} + n`, 'n')}, ${q(t.appId)}, 'grown-' || (1 + (n - 1) / ${ARTICLE_ITEMS}), 'grown' || (1 + n % ${size.users}),
        'reader comment ' || n, 'reader comment ' || n, ${at('n')}, ${at('n')}
      from generate_series(${from}, ${to}) n`,
    ),
  ];
}

/** Each article's poll, its choices and one response on each (the totals kept as votes keep them). */
function articlePolls(t: GrowTarget, size: StoreSize, first: number): string[] {
  const choice = `'grown-poll-' || (1 + (n - 1) / ${ARTICLE_ITEMS}) || '-' || (1 + (n - 1) % ${ARTICLE_ITEMS})`;
  return [
    ...batches(
      size.rooms,
      (from, to) => `insert into polls (id, app_id, title, total_responses)
      select 'grown-poll-' || i, ${q(t.appId)}, 'Poll ' || i, ${ARTICLE_ITEMS} from generate_series(${from}, ${to}) i`,
    ),
    ...batches(
      size.rooms * ARTICLE_ITEMS,
      (from, to) => `insert into poll_choices (id, poll_id, position, title, response_count)
      select ${choice}, 'grown-poll-' || (1 + (n - 1) / ${ARTICLE_ITEMS}), (n - 1) % ${ARTICLE_ITEMS}, 'Choice ' || n, 1 from generate_series(${from}, ${to}) n`,
    ),
    ...batches(
      size.rooms * ARTICLE_ITEMS,
      (from, to) => `insert into poll_responses (id, poll_id, choice_id, user_id)
      select ${idOf(`${first} + n`, 'n')}, 'grown-poll-' || (1 + (n - 1) / ${ARTICLE_ITEMS}), ${choice}, 'grown' || (1 + n % ${size.users})
      from generate_series(${from}, ${to}) n`,
    ),
  ];
}

function users(t: GrowTarget, size: StoreSize): string[] {
  return batches(
    size.users,
    (from, to) => `insert into users (pool, user_id, handle, handle_lower, display_name)
      select a.user_pool, 'grown' || i, 'grown' || i, 'grown' || i, 'Fan ' || i || ' u' || substr(md5(i::text), 1, 7)
      from generate_series(${from}, ${to}) i, applications a where a.id = ${q(t.appId)}`,
  );
}

/** The statements that grow the store, straight in SQL (generate_series), batch by batch. */
function statements(t: GrowTarget, size: StoreSize, now: number): string[] {
  const first = now - size.history - size.rooms * ARTICLE_ITEMS - 60_000;
  return [...history(t, size, first), ...users(t, size), ...articleRooms(t, size, first), ...articleConversations(t, size, first), ...articlePolls(t, size, first), 'analyze'];
}

/** Grows the store of a stopped server: its embedded data directory, or its Postgres database. */
export async function growStore(where: { dataDir: string; databaseUrl: string | undefined }, t: GrowTarget, size: StoreSize): Promise<void> {
  const work = statements(t, size, Date.now());
  if (where.databaseUrl !== undefined) {
    const client = new pg.Client({ connectionString: where.databaseUrl });
    await client.connect();
    try {
      for (const s of work) await client.query(s);
    } finally {
      await client.end();
    }
    return;
  }
  const db = new PGlite(where.dataDir, EMBEDDED_OPTIONS);
  try {
    for (const s of work) await db.exec(s);
  } finally {
    await db.close();
  }
}
