import { type SQL, sql } from 'drizzle-orm';
import { rows, type Queryable } from '../../db/client.js';
import { addedAt, insertNotificationRows } from '../../notifications/insert.js';
import type { WrittenNotice } from './insert-events.js';

/** A reaction event, and the notification its target's author gets (unless they reacted themself): its id is made before the write. */
export interface ReactionNotice {
  id: string;
  /** The reaction event. */
  eventId: string;
  /** The event reacted to. */
  targetId: string;
  /** Who reacted. */
  userId: string;
}

/** The room of a batch of reactions, as their notifications name it. */
export interface NoticedRoom {
  appId: string;
  id: string;
  customId: string | null;
}

/** The notifications a batch of reactions may owe, and the time they are added. */
export interface ReactionNotices {
  notices: ReactionNotice[];
  added: Date;
}

/**
 * Writes the notifications of a batch's reaction events: one to the author of the event each
 * reacted to, never to the one who reacted, read from `targets` (a relation with the events' id
 * and user_id). `gate` joins in a relation that is empty when nothing else of the statement was
 * written. Returns the rows written (id, user_id, item_id).
 */
function insertNotices(room: NoticedRoom, { notices, added }: ReactionNotices, gate: SQL, targets: SQL): SQL {
  const json = JSON.stringify(notices.map((n) => [n.id, n.eventId, n.targetId, n.userId]));
  return insertNotificationRows(sql`
    select x.e->>0, ${room.appId}::text, t.user_id, 'reaction', 'chatreaction', 'chat', ${room.id}::text, ${room.customId}::text, x.e->>1, x.e->>3, ${addedAt(added)}
    from ${gate}jsonb_array_elements(${json}::jsonb) as x(e)
    join ${targets} t on t.id = x.e->>2
    where t.user_id <> x.e->>3`);
}

/**
 * The notifications of a batch of likes as the end of the likes' statement (see likesWith):
 * written when its events are (the room's reservation `r` was made), the authors read from the
 * locked targets `t`, so a like commits once, its notification with it.
 */
export function noticesWith(room: NoticedRoom, noticed: ReactionNotices): { after: SQL; notified: SQL } {
  return {
    after: sql`notice as (${insertNotices(room, noticed, sql`r, `, sql`t`)})`,
    notified: sql`(select coalesce(jsonb_agg(jsonb_build_array(id, user_id, item_id)), '[]'::jsonb) from notice)`,
  };
}

/** The notifications of reactions in the transaction that wrote them, after their events (their targets are locked). */
export async function insertReactionNotices(tx: Queryable, room: NoticedRoom, noticed: ReactionNotices): Promise<WrittenNotice[]> {
  if (noticed.notices.length === 0) return [];
  const written = await rows<{ id: string; user_id: string; item_id: string }>(tx, insertNotices(room, noticed, sql``, sql`chat_events`));
  return written.map((w) => ({ id: w.id, userId: w.user_id, eventId: w.item_id }));
}
