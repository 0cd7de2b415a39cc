import type { Application } from '../../apps/types.js';
import type { Db } from '../../db/client.js';
import { listPayload, stringCursor } from '../../http/cursor.js';
import { SharedAnswers } from '../../shared-answers.js';
import { roomDetailsVersion, roomsPageVersion, type RoomFilter } from '../store/rooms.js';
import type { Room } from '../types.js';
import { roomView, type RoomView } from '../views.js';
import type { RoomDirectory } from './room-directory.js';
import type { RoomLists } from './room-lists.js';

export interface RoomReadsDeps {
  db: Db;
  rooms: RoomDirectory;
  roomLists: RoomLists;
  /** The room with who is bounced, shadow banned, ... in it (moderation's view). */
  moderatedView(app: Application, room: Room): Promise<RoomView>;
  /** Bytes each cache holds at most (CROWD_READS_CACHE). */
  maxBytes: number;
}

const bytesOf = (answer: Buffer) => answer.length;

/**
 * The room reads a crowd makes with the same parameters (a room's details by id or custom id, a
 * page of the rooms list), as the JSON to send. Whatever node changed the room, an answer never
 * misses a change acknowledged before its request:
 * - a room's details and the lobby's pages are made once per version of what they show, read from
 *   the database once for every request that began before the read started (roomDetailsVersion,
 *   roomsPageVersion: a few columns of the rows, not the rows, their views and JSON);
 * - the others (by custom id, filtered pages) are read once for every request that began before
 *   the read started (SharedAnswers with `since`): a crowd costs one read per read's duration.
 */
export class RoomReads {
  private readonly details: SharedAnswers<Buffer>;
  private readonly versions = new SharedAnswers<string | undefined>({ name: 'room_versions', maxBytes: 1 << 20, sizeOf: () => 256 });
  private readonly lists: SharedAnswers<Buffer>;

  constructor(private readonly deps: RoomReadsDeps) {
    this.details = new SharedAnswers({ name: 'room_details', maxBytes: deps.maxBytes, sizeOf: bytesOf });
    this.lists = new SharedAnswers({ name: 'rooms_list', maxBytes: deps.maxBytes, sizeOf: bytesOf });
  }

  /** chat.room with the moderation lists the SDKs read, for a request that began at `began` (performance.now()). */
  async byId(app: Application, roomId: string, began: number): Promise<Buffer> {
    const version = await this.versions.take(`room/${roomId}`, { version: '', since: began }, () => roomDetailsVersion(this.deps.db, roomId));
    // A room not there: the read answers 404 (and is not kept).
    return this.details.take(`${app.id}/id/${roomId}`, { version: version ?? '' }, async () => {
      const room = await this.deps.rooms.fresh(app, roomId);
      return Buffer.from(JSON.stringify(await this.deps.moderatedView(app, room)));
    });
  }

  byCustomId(app: Application, customId: string, began: number): Promise<Buffer> {
    return this.details.take(`${app.id}/custom/${customId}`, { version: '', since: began }, async () => Buffer.from(JSON.stringify(roomView(await this.deps.rooms.byCustomId(app, customId, began)))));
  }

  /** A page of the public rooms (list.chatrooms); the lobby's pages (no filter) once per version of the rooms they show. */
  async list(app: Application, filter: RoomFilter, cursor: string, limit: number, began: number): Promise<Buffer> {
    const key = JSON.stringify([app.id, filter.name, filter.id, filter.customId, cursor, limit]);
    const filtered = filter.name !== '' || filter.id !== '' || filter.customId !== '';
    const want = filtered
      ? { version: '', since: began }
      : { version: (await this.versions.take(`list/${key}`, { version: '', since: began }, () => roomsPageVersion(this.deps.db, app.id, stringCursor(cursor) ?? '', limit))) ?? '' };
    return this.lists.take(key, want, async () => {
      const { items, next } = await this.deps.roomLists.rooms(app, filter, cursor, limit);
      return Buffer.from(JSON.stringify(listPayload('list.chatrooms', 'rooms', items, next)));
    });
  }
}
