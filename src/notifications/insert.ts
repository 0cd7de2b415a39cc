import { type SQL, sql } from 'drizzle-orm';
import { preparedText, type Queryable } from '../db/client.js';
import type { NewNotification, NotificationWithPayload } from './types.js';

const COLUMNS = ['id', 'app_id', 'user_id', 'type', 'event_type', 'entity', 'container_id', 'container_custom_id', 'item_id', 'from_user_id'];
/**
 * Notifications written by another area's statement, with what it writes (a reaction's, see
 * src/chat/store/reaction-notices.ts): `rows` selects the values of COLUMNS in order, then the
 * time added (see `addedAt`). Returns the rows' id, user_id and item_id.
 */
export const insertNotificationRows = (rows: SQL): SQL => sql`insert into notifications (${sql.raw(COLUMNS.join(', '))}, added) ${rows} returning id, user_id, item_id`;

/** A notification's time added as a statement parameter (epoch ms, as insertNotifications sends it). */
export const addedAt = (added: Date): SQL => sql`to_timestamp(${added.getTime()}::float8 / 1000)`;

/** The most rows one statement takes; a larger batch is written in several, in one transaction. */
const MOST_ROWS = 512;
/** The statement for each number of rows (1, 2, 4, … MOST_ROWS), made once. */
const statements = new Map<number, string>();

/**
 * A statement for `size` rows, every value a text parameter ($1 is the time added): the database
 * stores them as they come, where one JSON parameter holding the rows made it parse them. Unused
 * rows are null and skipped.
 */
function statementFor(size: number): string {
  let text = statements.get(size);
  if (text === undefined) {
    const rows: string[] = [];
    for (let r = 0; r < size; r++) rows.push(`(${COLUMNS.map((_, c) => `$${2 + r * COLUMNS.length + c}::text`).join(', ')})`);
    text = `insert into notifications (${COLUMNS.join(', ')}, added)
      select v.*, to_timestamp($1::float8 / 1000) from (values ${rows.join(', ')}) as v(${COLUMNS.join(', ')})
      where v.id is not null`;
    statements.set(size, text);
  }
  return text;
}

/** The smallest statement size (a power of two) that holds `n` rows, so a handful of prepared statements serve every batch. */
const sizeFor = (n: number) => 2 ** Math.ceil(Math.log2(n));

async function insertChunk(q: Queryable, rows: NewNotification[], added: Date): Promise<void> {
  const size = sizeFor(rows.length);
  const params: unknown[] = new Array(1 + size * COLUMNS.length).fill(null);
  params[0] = added.getTime();
  let i = 1;
  for (const r of rows) {
    params[i++] = r.id;
    params[i++] = r.appId;
    params[i++] = r.userId;
    params[i++] = r.type;
    params[i++] = r.eventType;
    params[i++] = r.entity;
    params[i++] = r.containerId;
    params[i++] = r.containerCustomId ?? null;
    params[i++] = r.itemId;
    params[i++] = r.fromUserId;
  }
  await preparedText(q, `notifications_insert_${size}`, statementFor(size), params);
}

/**
 * Stores new notifications (unread, added now) with one statement, without their payloads (the
 * answers read the items they name). Returns the rows as stored, each with the payload to push,
 * without reading them back.
 */
export async function insertNotifications(q: Queryable, rows: NewNotification[]): Promise<NotificationWithPayload[]> {
  if (rows.length === 0) return [];
  const added = new Date();
  if (rows.length <= MOST_ROWS) await insertChunk(q, rows, added);
  else
    await q.transaction(async (tx) => {
      for (let start = 0; start < rows.length; start += MOST_ROWS) await insertChunk(tx, rows.slice(start, start + MOST_ROWS), added);
    });
  return rows.map((r) => asStored(r, added));
}

/** A new notification as it is stored (unread), added at `added`. */
export const asStored = (r: NewNotification, added: Date): NotificationWithPayload => ({ ...r, containerCustomId: r.containerCustomId ?? null, read: false, whenRead: null, added });
