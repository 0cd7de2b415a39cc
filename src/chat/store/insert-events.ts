import { type SQL, sql } from 'drizzle-orm';
import { preparedRows, type Queryable } from '../../db/client.js';
import type { ChatEvent } from '../types.js';
import { eventsOfJson } from './events.js';

/** How a column's value is written into a row's JSON array (no generic walk, no intermediate arrays). */
type Encode = (r: ChatEvent) => string;
const text =
  (get: (r: ChatEvent) => string | null): Encode =>
  (r) => {
    const v = get(r);
    return v === null ? 'null' : v === '' ? '""' : JSON.stringify(v);
  };
/** Values the server makes (ids, enum words): nothing in them needs escaping. */
const word =
  (get: (r: ChatEvent) => string): Encode =>
  (r) =>
    `"${get(r)}"`;
const int =
  (get: (r: ChatEvent) => number | null): Encode =>
  (r) =>
    String(get(r));
const bool =
  (get: (r: ChatEvent) => boolean): Encode =>
  (r) =>
    get(r) ? 'true' : 'false';
const json =
  (get: (r: ChatEvent) => unknown[]): Encode =>
  (r) => {
    const v = get(r);
    return v.length === 0 ? '[]' : JSON.stringify(v);
  };
/** As epoch milliseconds (the statement converts them): cheaper than an ISO string. */
const time =
  (get: (r: ChatEvent) => Date | null): Encode =>
  (r) => {
    const v = get(r);
    return v === null ? 'null' : String(v.getTime());
  };

/**
 * Each chat_events column: its SQL type and how its value is encoded. The rows travel as ONE
 * JSON parameter (an array of arrays) that the statement unpacks with jsonb_array_elements:
 * array parameters would be escaped element by element by the driver, which costs more.
 */
const COLUMNS: [string, string, Encode][] = [
  ['id', 'text', word((r) => r.id)],
  ['app_id', 'text', word((r) => r.appId)],
  ['room_id', 'text', word((r) => r.roomId)],
  ['seq', 'bigint', int((r) => r.seq)],
  ['event_type', 'text', word((r) => r.eventType)],
  ['user_id', 'text', text((r) => r.userId)],
  ['body', 'text', text((r) => r.body)],
  ['original_body', 'text', text((r) => r.originalBody)],
  ['custom_type', 'text', text((r) => r.customType)],
  ['custom_id', 'text', text((r) => r.customId)],
  ['custom_payload', 'text', text((r) => r.customPayload)],
  ['custom_field1', 'text', text((r) => r.customField1)],
  ['custom_field2', 'text', text((r) => r.customField2)],
  ['custom_tags', 'jsonb', json((r) => r.customTags)],
  ['reply_to_id', 'text', text((r) => r.replyToId)],
  ['parent_id', 'text', text((r) => r.parentId)],
  ['hierarchy', 'jsonb', json((r) => r.hierarchy)],
  ['hashtags', 'jsonb', json((r) => r.hashtags)],
  ['reactions', 'jsonb', json((r) => r.reactions)],
  ['like_count', 'integer', int((r) => r.likeCount)],
  ['reply_count', 'integer', int((r) => r.replyCount)],
  ['reports', 'jsonb', json((r) => r.reports)],
  ['report_count', 'integer', int((r) => r.reportCount)],
  ['muted_by', 'jsonb', json((r) => r.mutedBy)],
  ['edited', 'boolean', bool((r) => r.edited)],
  ['deleted', 'boolean', bool((r) => r.deleted)],
  ['active', 'boolean', bool((r) => r.active)],
  ['shadowban', 'boolean', bool((r) => r.shadowban)],
  ['moderation', 'text', word((r) => r.moderation)],
  ['release_at', 'timestamptz', time((r) => r.releaseAt)],
  ['ts', 'bigint', int((r) => r.ts)],
  ['added', 'timestamptz', time((r) => r.added)],
  ['when_modified', 'timestamptz', time((r) => r.whenModified)],
];

const NAMES = COLUMNS.map(([name]) => name).join(', ');
/** Column k of the row `e` (a JSON array) as its SQL type; jsonb columns keep their JSON. */
const valueOf = (k: number, type: string) => (type === 'jsonb' ? `(e->${k})::jsonb` : type === 'timestamptz' ? `to_timestamp((e->>${k})::float8 / 1000)` : `(e->>${k})::${type}`);
const INSERT_SELECT = COLUMNS.map(([, type], k) => valueOf(k, type)).join(', ');
const ENCODERS = COLUMNS.map(([, , encode]) => encode);
/** The position in the feed rides at the end of each row. */
const POSITION = COLUMNS.length;

function rowsJson(events: ChatEvent[], positions?: (number | null)[]): string {
  let out = '[';
  for (let i = 0; i < events.length; i++) {
    const r = events[i] as ChatEvent;
    out += i === 0 ? '[' : ',[';
    for (let k = 0; k < ENCODERS.length; k++) out += (k === 0 ? '' : ',') + (ENCODERS[k] as Encode)(r);
    out += positions === undefined ? ']' : `,${String(positions[i] ?? null)}]`;
  }
  return `${out}]`;
}

/**
 * Inserts complete rows with one statement whose shape does not depend on the row count (so it
 * is planned alike every time). A VALUES list of rows × columns parameters costs more CPU than
 * the database spends on the insert.
 */
export async function insertEvents(q: Queryable, events: ChatEvent[]): Promise<void> {
  const first = events[0];
  if (first === undefined) return;
  await q.execute(
    sql`with ins as (
      insert into chat_events (${sql.raw(NAMES)}) select ${sql.raw(INSERT_SELECT)} from jsonb_array_elements(${rowsJson(events)}::jsonb) as e ${JOURNALLED}
    ), ${journal(first.appId)}
    select 1`,
  );
}

/** What the journal needs of an inserted row. */
const JOURNALLED = sql.raw('returning id, app_id, seq, event_type, shadowban');

/**
 * The inserted rows (`ins`) that enter the feed and that webhooks see, journalled for the
 * postpublish hooks in the same statement (webhook_journal, migrations 0005 and 0006). An app
 * without an enabled postpublish hook fails the one-time condition, so the statement neither
 * reads its rows again nor writes a journal row. Every insert of chat events goes through this
 * file: an insert that left it out would lose its events' deliveries across a crash.
 */
const journal = (appId: string) => sql`journal as (
  insert into webhook_journal (key, kind, app_id)
  select ins.id, 'chat', ins.app_id from ins
  where webhook_hooked_app(${appId}::text) and ins.seq is not null and webhook_chat_event_seen(ins.event_type, ins.shadowban)
  on conflict do nothing
)`;

/** The select list of appendToFeed: every column from the JSON rows, seq computed from the reservation. */
const FEED_SELECT = COLUMNS.map(([name, type], k) => (name === 'seq' ? `r.last_seq - r.n + (e->>${POSITION})::bigint` : valueOf(k, type))).join(', ');

/** Statements that run with a feed append, in the same statement: CTEs before it, and a condition the room's reservation waits for. */
export interface AppendWith {
  name: string;
  ctes: SQL;
  /** Referenced by the reservation, so what it reads (row locks) is taken first; false writes nothing. */
  before: SQL;
  /** The ids of the events the changes needed but did not find (a text[]): when not empty, `before` is false. */
  gone: SQL;
  /** The events the changes wrote, as they left them (a JSON array of `to_jsonb` rows): their views need no read. */
  changed: SQL;
  /** Statements that follow the feed insert and may read the reservation (`r`, one row when the events are written) and what it inserted (`ins`). */
  after: SQL;
  /** The notifications those wrote (a JSON array of [id, user id, event id]). */
  notified: SQL;
}

/** A notification written with the event it is about, in the event's own statement. */
export interface WrittenNotice {
  id: string;
  /** The user notified. */
  userId: string;
  /** The chat event it is about. */
  eventId: string;
}

/** What an append did: the room's new last seq, the events its `AppendWith` changed and the notifications it wrote. */
export interface Appended {
  lastSeq: number;
  changed: ChatEvent[];
  notified: WrittenNotice[];
}

/** Events a batch's changes apply to that are not (or no longer) in its room: nothing of the batch was written. */
export class TargetsGone extends Error {
  constructor(readonly ids: string[]) {
    super(`Events gone: ${ids.join(', ')}`);
  }
}

/**
 * One room's new events in one statement (so one round trip and an implicit commit): reserve
 * `count` feed positions on the room row, which orders concurrent writers, and insert the rows,
 * those with a `positions` entry at `last_seq - count + position`, the others waiting (seq
 * null). Returns the room's new last seq, or undefined when the room does not exist. `along`
 * adds changes of its own to the same statement (see likesWith); when they miss events, nothing
 * is written and it throws TargetsGone.
 */
export async function appendToFeed(q: Queryable, roomId: string, events: ChatEvent[], positions: (number | null)[], count: number, along?: AppendWith): Promise<Appended | undefined> {
  const found = await preparedRows<{ last_seq: string | number | null; gone?: string[]; changed?: Record<string, unknown>[] | null; notified?: [string, string, string][] | null }>(
    q,
    along?.name ?? 'chat_append_to_feed',
    sql`with ${along === undefined ? sql`` : sql`${along.ctes}, `}r as (
      update chat_rooms set last_seq = last_seq + ${count}, last_message_at = now() where id = ${roomId}${along === undefined ? sql`` : sql` and ${along.before}`} returning last_seq, ${count}::bigint as n
    ), ins as (
      insert into chat_events (${sql.raw(NAMES)})
      select ${sql.raw(FEED_SELECT)}
      from r, jsonb_array_elements(${rowsJson(events, positions)}::jsonb) as e
      ${JOURNALLED}
    ), ${journal(events[0]?.appId ?? '')}${along === undefined ? sql`` : sql`, ${along.after}`}
    ${along === undefined ? sql`select last_seq from r` : sql`select (select last_seq from r) as last_seq, ${along.gone} as gone, ${along.changed} as changed, ${along.notified} as notified`}`,
  );
  const gone = found[0]?.gone ?? [];
  if (gone.length > 0) throw new TargetsGone(gone);
  const last = found[0]?.last_seq;
  if (last === undefined || last === null) return undefined;
  const notified = (found[0]?.notified ?? []).map(([id, userId, eventId]) => ({ id, userId, eventId }));
  return { lastSeq: Number(last), changed: eventsOfJson(found[0]?.changed ?? []), notified };
}
