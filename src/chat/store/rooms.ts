import { and, asc, eq, gt, ilike, inArray, or, sql } from 'drizzle-orm';
import { statementOnce, type Queryable } from '../../db/client.js';
import { textArrayLiteral, plannedOnce } from '../../db/arrays.js';
import { containing } from '../../db/like.js';
import { chatRoomEffects, chatRooms } from '../../db/schema/chat.js';
import { chatRoomUserReports } from '../../db/schema/chat-moderation.js';
import { tableRows } from '../../db/table-rows.js';
import type { Room } from '../types.js';

export const ROOM_ROWS = tableRows(chatRooms);
/** A room by id, or by an app's custom id: named statements, as a room nobody read recently is read by one of them. */
const ROOMS_BY_ID = statementOnce<Record<string, unknown>>('chat_rooms_by_id', sql`select ${ROOM_ROWS.list} from ${chatRooms} where ${chatRooms.id} = any(${plannedOnce('roomIds', 'text[]')})`);
const ROOMS_BY_CUSTOM_ID = statementOnce<Record<string, unknown>>(
  'chat_rooms_by_custom_id',
  sql`select ${ROOM_ROWS.list} from ${chatRooms} where ${chatRooms.appId} = ${sql.placeholder('appId')} and ${chatRooms.customId} = any(${plannedOnce('customIds', 'text[]')})`,
);

export type NewRoom = typeof chatRooms.$inferInsert;
export type RoomPatch = Partial<Omit<NewRoom, 'id' | 'appId' | 'added' | 'lastSeq' | 'inRoom'>>;

export async function insertRoom(q: Queryable, row: NewRoom): Promise<Room> {
  const [room] = await q.insert(chatRooms).values(row).returning();
  return room as Room;
}

export async function findRoom(q: Queryable, appId: string, roomId: string): Promise<Room | undefined> {
  const [room] = await findRoomsAnyApp(q, [roomId]);
  return room?.appId === appId ? room : undefined;
}

/** These rooms (those there are) whatever their app, in one named statement: for reads shared by several apps' requests, which check the app themselves. */
export async function findRoomsAnyApp(q: Queryable, roomIds: string[]): Promise<Room[]> {
  return (await ROOMS_BY_ID(q, { roomIds: textArrayLiteral(roomIds) })).map(ROOM_ROWS.of);
}

/** The app's rooms of these custom ids (those there are), in one named statement. */
export async function findRoomsByCustomId(q: Queryable, appId: string, customIds: string[]): Promise<Room[]> {
  return (await ROOMS_BY_CUSTOM_ID(q, { appId, customIds: textArrayLiteral(customIds) })).map(ROOM_ROWS.of);
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

/** A column's name, quoted, for the named statements below. */
const c = (column: { name: string }) => sql.identifier(column.name);

const FEED_HEADS = statementOnce<{ roomId: string; seq: string | number; revision: string | number }>(
  'chat_feed_heads',
  sql`select ${c(chatRooms.id)} as "roomId", ${c(chatRooms.lastSeq)} as seq, ${c(chatRooms.eventsRevision)} as revision from ${chatRooms}
    where ${c(chatRooms.id)} = any(${plannedOnce('roomIds', 'text[]')})`,
);

/** A feed's head and its events revision (changes in place move it). */
export interface FeedHead {
  roomId: string;
  seq: number;
  revision: number;
}

/** The feed's head and its events revision, as one row read (a named statement: crowds ask it often); 0 and 0 for a room not there. */
export async function feedHead(q: Queryable, roomId: string): Promise<FeedHead> {
  return (await feedHeads(q, [roomId]))[0] ?? { roomId, seq: 0, revision: 0 };
}

/** The heads of these rooms (those there are), in one named statement. */
export async function feedHeads(q: Queryable, roomIds: string[]): Promise<FeedHead[]> {
  return (await FEED_HEADS(q, { roomIds: textArrayLiteral(roomIds) })).map((row) => ({ roomId: row.roomId, seq: Number(row.seq), revision: Number(row.revision) }));
}

const ROOM_DETAILS_VERSION = statementOnce<{ version: string }>(
  'chat_room_details_version',
  sql`select concat_ws('/', r.${c(chatRooms.whenModified)}, r.${c(chatRooms.inRoom)}, r.${c(chatRooms.lastMessageAt)},
      (select concat_ws('/', count(*), max(e.${c(chatRoomEffects.added)}), count(*) filter (where e.${c(chatRoomEffects.expires)} is null or e.${c(chatRoomEffects.expires)} > now()))
         from ${chatRoomEffects} e where e.${c(chatRoomEffects.roomId)} = r.${c(chatRooms.id)}),
      (select concat_ws('/', count(*), max(u.${c(chatRoomUserReports.added)}))
         from ${chatRoomUserReports} u where u.${c(chatRoomUserReports.roomId)} = r.${c(chatRooms.id)})) as version
      from ${chatRooms} r where r.${c(chatRooms.id)} = ${sql.placeholder('roomId')}`,
);

/**
 * What a room's details (the row and its moderation lists) are made from, as one string that
 * changes whenever they do: the row's modification time and the counters the details show, and of its effects and user
 * reports how many there are, the newest one's time (every insert or upsert sets it) and how many
 * effects are in force now. Undefined for a room that is not there.
 */
export async function roomDetailsVersion(q: Queryable, roomId: string): Promise<string | undefined> {
  const [row] = await ROOM_DETAILS_VERSION(q, { roomId });
  return row?.version;
}

const ROOMS_PAGE_VERSION = statementOnce<{ version: string | null }>(
  'chat_rooms_page_version',
  sql`select md5(string_agg(concat_ws('/', ${c(chatRooms.id)}, ${c(chatRooms.whenModified)}, ${c(chatRooms.inRoom)}, ${c(chatRooms.lastMessageAt)}), ',' order by ${c(chatRooms.id)})) as version
      from (select ${c(chatRooms.id)}, ${c(chatRooms.whenModified)}, ${c(chatRooms.inRoom)}, ${c(chatRooms.lastMessageAt)} from ${chatRooms}
        where ${c(chatRooms.appId)} = ${sql.placeholder('appId')} and ${c(chatRooms.private)} = false and ${c(chatRooms.id)} > ${sql.placeholder('after')} order by ${c(chatRooms.id)} limit ${sql.placeholder('limit')}) page`,
);

/**
 * What a page of the public rooms (no filters) is made from, as one string that changes whenever
 * it does: the ids, modification times and shown counters of the `limit` rooms after `after` and of
 * the one after them (whether there are more). Reads the few columns of the page's rows, not the rows.
 */
export async function roomsPageVersion(q: Queryable, appId: string, after: string, limit: number): Promise<string> {
  const [row] = await ROOMS_PAGE_VERSION(q, { appId, after, limit: limit + 1 });
  return row?.version ?? '';
}
