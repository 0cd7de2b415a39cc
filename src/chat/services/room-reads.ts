import type { Application } from '../../apps/types.js';
import { listPayload } from '../../http/cursor.js';
import { SharedAnswers } from '../../shared-answers.js';
import type { RoomFilter } from '../store/rooms.js';
import type { Room } from '../types.js';
import { roomView, type RoomView } from '../views.js';
import type { RoomDirectory } from './room-directory.js';
import type { RoomLists } from './room-lists.js';

export interface RoomReadsDeps {
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
 * page of the rooms list), as the JSON to send, read once for every request that began before the
 * read started (SharedAnswers with `since`): whatever node changed the room, an answer never misses
 * a change acknowledged before its request, and a crowd costs one read per read's duration.
 */
export class RoomReads {
  private readonly details: SharedAnswers<Buffer>;
  private readonly lists: SharedAnswers<Buffer>;

  constructor(private readonly deps: RoomReadsDeps) {
    this.details = new SharedAnswers({ name: 'room_details', maxBytes: deps.maxBytes, sizeOf: bytesOf });
    this.lists = new SharedAnswers({ name: 'rooms_list', maxBytes: deps.maxBytes, sizeOf: bytesOf });
  }

  /** chat.room with the moderation lists the SDKs read, for a request that began at `began` (performance.now()). */
  byId(app: Application, roomId: string, began: number): Promise<Buffer> {
    return this.details.take(`${app.id}/id/${roomId}`, { version: '', since: began }, async () => {
      const room = await this.deps.rooms.fresh(app, roomId);
      return Buffer.from(JSON.stringify(await this.deps.moderatedView(app, room)));
    });
  }

  byCustomId(app: Application, customId: string, began: number): Promise<Buffer> {
    return this.details.take(`${app.id}/custom/${customId}`, { version: '', since: began }, async () => Buffer.from(JSON.stringify(roomView(await this.deps.rooms.byCustomId(app, customId, began)))));
  }

  /** A page of the public rooms (list.chatrooms). */
  list(app: Application, filter: RoomFilter, cursor: string, limit: number, began: number): Promise<Buffer> {
    const key = JSON.stringify([app.id, filter.name, filter.id, filter.customId, cursor, limit]);
    return this.lists.take(key, { version: '', since: began }, async () => {
      const { items, next } = await this.deps.roomLists.rooms(app, filter, cursor, limit);
      return Buffer.from(JSON.stringify(listPayload('list.chatrooms', 'rooms', items, next)));
    });
  }
}
