import { and, asc, eq, gt, ilike, inArray, or, sql } from 'drizzle-orm';
import type { Queryable } from '../../db/client.js';
import { containing } from '../../db/like.js';
import { chatRooms } from '../../db/schema/chat.js';
import type { Room } from '../types.js';

export type NewRoom = typeof chatRooms.$inferInsert;
export type RoomPatch = Partial<Omit<NewRoom, 'id' | 'appId' | 'added' | 'lastSeq' | 'inRoom'>>;

export async function insertRoom(q: Queryable, row: NewRoom): Promise<Room> {
  const [room] = await q.insert(chatRooms).values(row).returning();
  return room as Room;
}

export async function findRoom(q: Queryable, appId: string, roomId: string): Promise<Room | undefined> {
  const [room] = await q
    .select()
    .from(chatRooms)
    .where(and(eq(chatRooms.appId, appId), eq(chatRooms.id, roomId)));
  return room;
}

/** The room whatever its app: for a cache shared by every app, which checks the app itself. */
export async function findRoomAnyApp(q: Queryable, roomId: string): Promise<Room | undefined> {
  const [room] = await q.select().from(chatRooms).where(eq(chatRooms.id, roomId));
  return room;
}

export async function findRoomByCustomId(q: Queryable, appId: string, customId: string): Promise<Room | undefined> {
  const [room] = await q
    .select()
    .from(chatRooms)
    .where(and(eq(chatRooms.appId, appId), eq(chatRooms.customId, customId)));
  return room;
}

export async function findRooms(q: Queryable, appId: string, ids: string[], customIds: string[]): Promise<Room[]> {
  const byId = ids.length > 0 ? inArray(chatRooms.id, ids) : undefined;
  const byCustom = customIds.length > 0 ? inArray(chatRooms.customId, customIds) : undefined;
  return q
    .select()
    .from(chatRooms)
    .where(and(eq(chatRooms.appId, appId), or(byId, byCustom)));
}

export interface RoomFilter {
  name: string;
  id: string;
  customId: string;
}

/** Public rooms in id order, after `after`. Filters are case-insensitive substrings. */
export async function listRooms(q: Queryable, appId: string, filter: RoomFilter, after: string, limit: number): Promise<Room[]> {
  return q
    .select()
    .from(chatRooms)
    .where(
      and(
        eq(chatRooms.appId, appId),
        eq(chatRooms.private, false),
        gt(chatRooms.id, after),
        filter.name === '' ? undefined : ilike(chatRooms.name, containing(filter.name)),
        filter.id === '' ? undefined : ilike(chatRooms.id, containing(filter.id)),
        filter.customId === '' ? undefined : ilike(chatRooms.customId, containing(filter.customId)),
      ),
    )
    .orderBy(asc(chatRooms.id))
    .limit(limit);
}

export async function updateRoom(q: Queryable, appId: string, roomId: string, patch: RoomPatch): Promise<Room | undefined> {
  const [room] = await q
    .update(chatRooms)
    .set({ ...patch, whenModified: new Date() })
    .where(and(eq(chatRooms.appId, appId), eq(chatRooms.id, roomId)))
    .returning();
  return room;
}

export async function deleteRoom(q: Queryable, appId: string, roomId: string): Promise<Room | undefined> {
  const [room] = await q
    .delete(chatRooms)
    .where(and(eq(chatRooms.appId, appId), eq(chatRooms.id, roomId)))
    .returning();
  return room;
}

export async function addInRoom(q: Queryable, roomId: string, delta: number): Promise<void> {
  if (delta === 0) return;
  await q
    .update(chatRooms)
    .set({ inRoom: sql`greatest(${chatRooms.inRoom} + ${delta}, 0)` })
    .where(eq(chatRooms.id, roomId));
}

/** Reserves `count` feed positions; the row lock orders concurrent writers until commit. Returns the last one. */
export async function reserveSeqs(q: Queryable, roomId: string, count: number): Promise<number> {
  const [row] = await q
    .update(chatRooms)
    .set({ lastSeq: sql`${chatRooms.lastSeq} + ${count}`, lastMessageAt: new Date() })
    .where(eq(chatRooms.id, roomId))
    .returning({ lastSeq: chatRooms.lastSeq });
  if (row === undefined) throw new Error(`room ${roomId} vanished while publishing`);
  return row.lastSeq;
}

export async function lastSeq(q: Queryable, roomId: string): Promise<number> {
  const [row] = await q.select({ lastSeq: chatRooms.lastSeq }).from(chatRooms).where(eq(chatRooms.id, roomId));
  return row?.lastSeq ?? 0;
}

/** The feed's head and its events revision (changes in place move it), as one row read. */
export async function feedHead(q: Queryable, roomId: string): Promise<{ seq: number; revision: number }> {
  const [row] = await q.select({ seq: chatRooms.lastSeq, revision: chatRooms.eventsRevision }).from(chatRooms).where(eq(chatRooms.id, roomId));
  return { seq: row?.seq ?? 0, revision: row?.revision ?? 0 };
}
