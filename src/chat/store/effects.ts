import { and, eq, sql } from 'drizzle-orm';
import { textArrayLiteral, plannedOnce } from '../../db/arrays.js';
import { statementOnce, type Queryable } from '../../db/client.js';
import { chatRoomEffects, type RoomEffectKind } from '../../db/schema/chat.js';
import { tableRows } from '../../db/table-rows.js';
import type { RoomEffect } from '../types.js';

export const EFFECT_ROWS = tableRows(chatRoomEffects);
const e = chatRoomEffects;
/** An effect that has not run out. */
export const IN_FORCE = sql`(${e.expires} is null or ${e.expires} > now())`;
const IN_FORCE_IN_ROOMS = statementOnce<Record<string, unknown>>(
  'chat_room_effects_in_force',
  sql`select ${EFFECT_ROWS.list} from ${e} where ${e.roomId} = any(${plannedOnce('roomIds', 'text[]')}) and ${IN_FORCE}`,
);

/** The effects in force in these rooms, in one named statement. */
export async function effectsInForce(q: Queryable, roomIds: string[]): Promise<RoomEffect[]> {
  return (await IN_FORCE_IN_ROOMS(q, { roomIds: textArrayLiteral(roomIds) })).map(EFFECT_ROWS.of);
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
