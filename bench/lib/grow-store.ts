import { createHash } from 'node:crypto';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { EMBEDDED_OPTIONS } from '../../src/db/embedded.js';

/** How big a store to grow: events in one room, public rooms, users of the app's pool. */
export interface StoreSize {
  history: number;
  rooms: number;
  users: number;
}

/** The app and room the rows go into (made through the API first, so every other row is the server's own). */
export interface GrowTarget {
  appId: string;
  roomId: string;
  /** Users the bulk events are spread over (joined through the API). */
  speakers: string[];
}

/** A word only row `i` of its kind carries: what a search for one message, one fan, one room looks for. */
export const rareWord = (kind: 'event' | 'user' | 'room', i: number) => `${kind[0]}${createHash('md5').update(String(i)).digest('hex').slice(0, 7)}`;

/** Rows a batch statement inserts at once (PGlite holds a statement's work in its WebAssembly memory). */
const BATCH = 50_000;

/**
 * The statements that grow the store, straight in SQL (generate_series), batch by batch: events
 * numbered after the room's last seq with ids and times before anything made after (ids sort as
 * time, as src/ids.ts makes them), rooms and users with names carrying `rareWord`s.
 */
function statements(t: GrowTarget, size: StoreSize, now: number): string[] {
  const q = (s: string) => `'${s.replaceAll("'", "''")}'`;
  const speakers = `array[${t.speakers.map(q).join(',')}]`;
  const out: string[] = [];
  const batches = (total: number, make: (from: number, to: number) => string) => {
    for (let from = 1; from <= total; from += BATCH) out.push(make(from, Math.min(total, from + BATCH - 1)));
  };
  const first = now - size.history - 60_000;
  const idOf = (ms: string, tail: string) => `substr(lpad(to_hex(${ms}), 12, '0'), 1, 8) || '-' || substr(lpad(to_hex(${ms}), 12, '0'), 9, 4) || '-7000-8000-' || lpad(to_hex(${tail}), 12, '0')`;
  batches(
    size.history,
    (from, to) => `insert into chat_events (id, app_id, room_id, seq, event_type, user_id, body, original_body, ts, added, when_modified)
      select ${idOf(`${first} + i`, 'i')}, ${q(t.appId)}, ${q(t.roomId)}, r.last_seq + i, 'speech', (${speakers})[1 + i % ${t.speakers.length}],
        'fan message ' || i || ' e' || substr(md5(i::text), 1, 7), '', ${first} + i, to_timestamp((${first} + i) / 1000.0), to_timestamp((${first} + i) / 1000.0)
      from generate_series(${from}, ${to}) i, chat_rooms r where r.id = ${q(t.roomId)}`,
  );
  out.push(`update chat_rooms set last_seq = last_seq + ${size.history} where id = ${q(t.roomId)}`);
  batches(
    size.rooms,
    (from, to) => `insert into chat_rooms (id, app_id, name, added, when_modified)
      select 'grown-' || lpad(i::text, 9, '0'), ${q(t.appId)}, 'Room ' || i || ' r' || substr(md5(i::text), 1, 7), now(), now()
      from generate_series(${from}, ${to}) i`,
  );
  batches(
    size.users,
    (from, to) => `insert into users (pool, user_id, handle, handle_lower, display_name)
      select a.user_pool, 'grown' || i, 'grown' || i, 'grown' || i, 'Fan ' || i || ' u' || substr(md5(i::text), 1, 7)
      from generate_series(${from}, ${to}) i, applications a where a.id = ${q(t.appId)}`,
  );
  out.push('analyze');
  return out;
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
