import { sql } from 'drizzle-orm';
import { rows, type Queryable } from '../../db/client.js';
import type { ChatEvent } from '../context.js';

/** Each chat_events column: its SQL type and how a row's value goes into a parameter array. */
const COLUMNS: [string, string, (r: ChatEvent) => unknown][] = [
  ['id', 'text', (r) => r.id],
  ['app_id', 'text', (r) => r.appId],
  ['room_id', 'text', (r) => r.roomId],
  ['seq', 'bigint', (r) => r.seq],
  ['event_type', 'text', (r) => r.eventType],
  ['user_id', 'text', (r) => r.userId],
  ['body', 'text', (r) => r.body],
  ['original_body', 'text', (r) => r.originalBody],
  ['custom_type', 'text', (r) => r.customType],
  ['custom_id', 'text', (r) => r.customId],
  ['custom_payload', 'text', (r) => r.customPayload],
  ['custom_field1', 'text', (r) => r.customField1],
  ['custom_field2', 'text', (r) => r.customField2],
  ['custom_tags', 'jsonb', (r) => JSON.stringify(r.customTags)],
  ['reply_to_id', 'text', (r) => r.replyToId],
  ['parent_id', 'text', (r) => r.parentId],
  ['hierarchy', 'jsonb', (r) => JSON.stringify(r.hierarchy)],
  ['hashtags', 'jsonb', (r) => JSON.stringify(r.hashtags)],
  ['reactions', 'jsonb', (r) => JSON.stringify(r.reactions)],
  ['like_count', 'integer', (r) => r.likeCount],
  ['reply_count', 'integer', (r) => r.replyCount],
  ['reports', 'jsonb', (r) => JSON.stringify(r.reports)],
  ['report_count', 'integer', (r) => r.reportCount],
  ['muted_by', 'jsonb', (r) => JSON.stringify(r.mutedBy)],
  ['edited', 'boolean', (r) => r.edited],
  ['deleted', 'boolean', (r) => r.deleted],
  ['active', 'boolean', (r) => r.active],
  ['shadowban', 'boolean', (r) => r.shadowban],
  ['moderation', 'text', (r) => r.moderation],
  ['release_at', 'timestamptz', (r) => r.releaseAt?.toISOString() ?? null],
  ['ts', 'bigint', (r) => r.ts],
  ['added', 'timestamptz', (r) => r.added.toISOString()],
  ['when_modified', 'timestamptz', (r) => r.whenModified.toISOString()],
];

const NAMES = COLUMNS.map(([name]) => name).join(', ');
const INSERT_HEAD = sql.raw(`insert into chat_events (${NAMES}) select * from unnest(`);
const arraysOf = (rows: ChatEvent[]) => sql.join(
  COLUMNS.map(([, type, get]) => sql`${sql.param(rows.map(get))}::${sql.raw(type)}[]`),
  sql`, `,
);

/**
 * Inserts complete rows with one statement whose shape does not depend on the row count: one
 * array parameter per column, zipped by unnest. Building a VALUES list of rows × columns
 * parameters costs more CPU than the database spends on the insert.
 */
export async function insertEvents(q: Queryable, events: ChatEvent[]): Promise<void> {
  if (events.length === 0) return;
  await q.execute(sql`${INSERT_HEAD}${arraysOf(events)})`);
}

/** The select list of appendToFeed: every column from the unnest, seq computed from the reservation. */
const FEED_SELECT = COLUMNS.map(([name]) => (name === 'seq' ? 'case when u.pos is null then null else r.last_seq - r.n + u.pos end' : `u.${name}`)).join(', ');

/**
 * One room's new events in one statement (so one round trip and an implicit commit): reserve
 * `count` feed positions on the room row, which orders concurrent writers, and insert the rows,
 * those with a `positions` entry at `last_seq - count + position`, the others waiting (seq
 * null). Returns the room's new last seq, or undefined when the room does not exist.
 */
export async function appendToFeed(q: Queryable, roomId: string, events: ChatEvent[], positions: (number | null)[], count: number): Promise<number | undefined> {
  const found = await rows<{ last_seq: string | number }>(
    q,
    sql`with r as (
      update chat_rooms set last_seq = last_seq + ${count}, last_message_at = now() where id = ${roomId} returning last_seq, ${count}::bigint as n
    ), ins as (
      insert into chat_events (${sql.raw(NAMES)})
      select ${sql.raw(FEED_SELECT)}
      from r, unnest(${arraysOf(events)}, ${sql.param(positions)}::integer[]) as u(${sql.raw(NAMES)}, pos)
    )
    select last_seq from r`,
  );
  return found[0] === undefined ? undefined : Number(found[0].last_seq);
}
