import { sql } from 'drizzle-orm';
import { preparedRows, type Queryable } from '../db/client.js';
import { jsonOnce } from '../json-once.js';
import type { NewNotification, Notification } from './types.js';

/** A text column's value in a row's JSON array. */
const text = (v: string | null | undefined) => (v === null || v === undefined ? 'null' : JSON.stringify(v));

/**
 * Stores new notifications (unread, added now) with one statement whose shape does not depend on
 * their number: the rows travel as one JSON parameter, each payload as the JSON already made for
 * the push and the answer (a chat event with its target is a few KB, and a crowd liking one event
 * notifies its author once per like). Returns the rows as stored, without reading them back.
 */
export async function insertNotifications(q: Queryable, rows: NewNotification[]): Promise<Notification[]> {
  if (rows.length === 0) return [];
  const added = new Date();
  let json = '';
  for (const r of rows) {
    const cells = [r.id, r.appId, r.userId, r.type, r.eventType, r.entity, r.containerId, r.containerCustomId, r.itemId, r.fromUserId].map(text);
    json += `${json === '' ? '' : ','}[${cells.join(',')},${jsonOnce(r.payload)}]`;
  }
  await preparedRows(
    q,
    'notifications_insert',
    sql`insert into notifications (id, app_id, user_id, type, event_type, entity, container_id, container_custom_id, item_id, from_user_id, payload, added)
      select e->>0, e->>1, e->>2, e->>3, e->>4, e->>5, e->>6, e->>7, e->>8, e->>9, e->10, to_timestamp(${added.getTime()}::float8 / 1000)
      from jsonb_array_elements(${`[${json}]`}::jsonb) as e`,
  );
  return rows.map((r) => ({ ...r, containerCustomId: r.containerCustomId ?? null, read: false, whenRead: null, added }));
}
