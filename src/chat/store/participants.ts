import { and, asc, eq, gt, sql } from 'drizzle-orm';
import { textArray } from '../../db/arrays.js';
import { rows, type Queryable } from '../../db/client.js';
import { chatParticipants, chatRoomPermissions, chatRooms, chatSubscriptions } from '../../db/schema/chat.js';
import { newId } from '../../ids.js';
import type { Participant, Subscription } from '../types.js';

/** Starts (or refreshes) a session; true when the user was not in the room before. */
export async function upsertParticipant(q: Queryable, appId: string, roomId: string, userId: string, now: Date): Promise<boolean> {
  const inserted = await q.insert(chatParticipants).values({ appId, roomId, userId, added: now, lastSeen: now }).onConflictDoNothing().returning({ userId: chatParticipants.userId });
  if (inserted.length > 0) return true;
  await q
    .update(chatParticipants)
    .set({ lastSeen: now })
    .where(and(eq(chatParticipants.roomId, roomId), eq(chatParticipants.userId, userId)));
  return false;
}

export async function upsertSubscription(q: Queryable, appId: string, roomId: string, userId: string, now: Date): Promise<Subscription> {
  const [row] = await q
    .insert(chatSubscriptions)
    .values({ id: newId(), appId, roomId, userId, added: now, updated: now })
    .onConflictDoUpdate({ target: [chatSubscriptions.roomId, chatSubscriptions.userId], set: { updated: now } })
    .returning();
  return row as Subscription;
}

export async function deleteParticipant(q: Queryable, roomId: string, userId: string): Promise<boolean> {
  const gone = await q
    .delete(chatParticipants)
    .where(and(eq(chatParticipants.roomId, roomId), eq(chatParticipants.userId, userId)))
    .returning({ userId: chatParticipants.userId });
  return gone.length > 0;
}

export async function deleteSubscription(q: Queryable, roomId: string, userId: string): Promise<void> {
  await q.delete(chatSubscriptions).where(and(eq(chatSubscriptions.roomId, roomId), eq(chatSubscriptions.userId, userId)));
}

export async function findParticipant(q: Queryable, roomId: string, userId: string): Promise<Participant | undefined> {
  const [row] = await q
    .select()
    .from(chatParticipants)
    .where(and(eq(chatParticipants.roomId, roomId), eq(chatParticipants.userId, userId)));
  return row;
}

export async function listParticipants(q: Queryable, roomId: string, afterUserId: string, limit: number): Promise<Participant[]> {
  return q
    .select()
    .from(chatParticipants)
    .where(and(eq(chatParticipants.roomId, roomId), gt(chatParticipants.userId, afterUserId)))
    .orderBy(asc(chatParticipants.userId))
    .limit(limit);
}

/** Refreshes the sessions of users seen active (commands) since the last flush, in one statement. */
export async function touchParticipants(q: Queryable, seen: { roomId: string; userId: string }[], now: Date): Promise<void> {
  if (seen.length === 0) return;
  await q.execute(sql`
    update chat_participants p set last_seen = ${now}
    from unnest(${textArray(seen.map((s) => s.roomId))}::text[], ${textArray(seen.map((s) => s.userId))}::text[]) as a(room_id, user_id)
    where p.room_id = a.room_id and p.user_id = a.user_id`);
}

/** Removes up to `limit` sessions idle since `before` in rooms that expire sessions; returns them. */
export async function expireIdle(q: Queryable, before: Date, limit: number): Promise<{ appId: string; roomId: string; userId: string }[]> {
  return rows<{ appId: string; roomId: string; userId: string }>(
    q,
    sql`
    delete from chat_participants p
    where (p.room_id, p.user_id) in (
      select cp.room_id, cp.user_id from chat_participants cp join chat_rooms r on r.id = cp.room_id
      where r.enable_auto_expire_sessions and cp.last_seen < ${before}
      order by cp.last_seen limit ${limit}
    )
    returning p.app_id as "appId", p.room_id as "roomId", p.user_id as "userId"`,
  );
}

export async function listSubscriptions(q: Queryable, appId: string, userId: string, afterRoomId: string, limit: number) {
  return q
    .select({ sub: chatSubscriptions, room: chatRooms })
    .from(chatSubscriptions)
    .innerJoin(chatRooms, eq(chatRooms.id, chatSubscriptions.roomId))
    .where(and(eq(chatSubscriptions.appId, appId), eq(chatSubscriptions.userId, userId), gt(chatSubscriptions.roomId, afterRoomId)))
    .orderBy(asc(chatSubscriptions.roomId))
    .limit(limit);
}

export async function setPermission(q: Queryable, appId: string, roomId: string, userId: string, allow: boolean): Promise<void> {
  await q
    .insert(chatRoomPermissions)
    .values({ appId, roomId, userId, allow })
    .onConflictDoUpdate({ target: [chatRoomPermissions.roomId, chatRoomPermissions.userId], set: { allow } });
}

export async function isAllowed(q: Queryable, roomId: string, userId: string): Promise<boolean> {
  const [row] = await q
    .select({ allow: chatRoomPermissions.allow })
    .from(chatRoomPermissions)
    .where(and(eq(chatRoomPermissions.roomId, roomId), eq(chatRoomPermissions.userId, userId)));
  return row?.allow === true;
}

/** Everything of a room's people (participants, subscriptions, permissions), when the room goes. */
export async function deleteRoomPeople(q: Queryable, roomId: string): Promise<void> {
  await q.delete(chatParticipants).where(eq(chatParticipants.roomId, roomId));
  await q.delete(chatSubscriptions).where(eq(chatSubscriptions.roomId, roomId));
  await q.delete(chatRoomPermissions).where(eq(chatRoomPermissions.roomId, roomId));
}
