import { and, eq, gt, isNull, or } from 'drizzle-orm';
import type { Queryable } from '../../db/client.js';
import { chatRoomEffects, type RoomEffectKind } from '../../db/schema/chat.js';
import type { RoomEffect } from '../types.js';

const inForce = (now: Date) => or(isNull(chatRoomEffects.expires), gt(chatRoomEffects.expires, now));

export async function roomEffects(q: Queryable, roomId: string, now: Date): Promise<RoomEffect[]> {
  return q
    .select()
    .from(chatRoomEffects)
    .where(and(eq(chatRoomEffects.roomId, roomId), inForce(now)));
}

export async function upsertEffect(q: Queryable, appId: string, roomId: string, userId: string, effect: RoomEffectKind, expires: Date | null, reason: string, byUserId: string | null): Promise<void> {
  await q
    .insert(chatRoomEffects)
    .values({ appId, roomId, userId, effect, expires, reason, byUserId })
    .onConflictDoUpdate({ target: [chatRoomEffects.roomId, chatRoomEffects.userId, chatRoomEffects.effect], set: { expires, reason, byUserId, added: new Date() } });
}

export async function deleteEffect(q: Queryable, roomId: string, userId: string, effect: RoomEffectKind): Promise<boolean> {
  const gone = await q
    .delete(chatRoomEffects)
    .where(and(eq(chatRoomEffects.roomId, roomId), eq(chatRoomEffects.userId, userId), eq(chatRoomEffects.effect, effect)))
    .returning({ userId: chatRoomEffects.userId });
  return gone.length > 0;
}

export async function deleteRoomEffects(q: Queryable, roomId: string): Promise<number> {
  const gone = await q.delete(chatRoomEffects).where(eq(chatRoomEffects.roomId, roomId)).returning({ userId: chatRoomEffects.userId });
  return gone.length;
}
