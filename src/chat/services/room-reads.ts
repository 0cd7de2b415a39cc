import type { Application } from '../../apps/types.js';
import type { Db } from '../../db/client.js';
import type { CommitVersions } from '../../db/commit-versions.js';
import { listPayload, stringCursor } from '../../http/cursor.js';
import { atVersionOrSince, SharedAnswers, withItsAnswer, type Freshness } from '../../shared-answers.js';
import { roomDetailsVersion, roomsPageVersion, type RoomFilter } from '../store/rooms.js';
import { roomView, type RoomView } from '../views.js';
import type { RoomDirectory } from './room-directory.js';
import type { RoomLists } from './room-lists.js';

export interface RoomReadsDeps {
  db: Db;
  rooms: RoomDirectory;
  roomLists: RoomLists;
  /** The app's room with who is bounced, shadow banned, ... in it (moderation's view, read from the database), and when that changes by itself (an effect ends); 404 when there is none. */
  moderatedView(app: Application, roomId: string): Promise<{ view: RoomView; until: number }>;
  /** Versions of rooms as this process heard their commits (Database.commits); undefined where it cannot (a cluster, a transaction pooler). */
  commits: CommitVersions | undefined;
  /** Bytes each cache holds at most (CROWD_READS_CACHE). */
  maxBytes: number;
}

/** A room's details as sent, and until when they hold (an effect in them ends). */
interface Details {
  json: Buffer;
  until: number;
}

/**
 * The room reads a crowd makes with the same parameters (a room's details by id or custom id, a
 * page of the rooms list, several rooms' counters), as the JSON to send. Whatever node changed the room, an answer never
 * misses a change acknowledged before its request:
 * - where this process hears every commit (the embedded database, a single node on Postgres),
 *   every answer is made once per version of the rooms it shows as heard (CommitVersions): no
 *   read to check it;
 * - on a cluster, a room's details and the lobby's pages are made once per version of what they
 *   show, read from the database once for every request that began before the read started
 *   (roomDetailsVersion, roomsPageVersion: a few columns of the rows, not the rows, their views and
 *   JSON), and the others (by custom id, filtered pages, counters) are read once for every request that began
 *   before the read started (SharedAnswers with `since`): a crowd costs one read per read's duration.
 * A room's details also end when an effect in them does.
 */
export class RoomReads {
  private readonly details: SharedAnswers<Details>;
  private readonly versions = new SharedAnswers<string | undefined>({ name: 'room_versions', maxBytes: 1 << 20, sizeOf: () => 256 });
  private readonly lists: SharedAnswers<Buffer>;

  constructor(private readonly deps: RoomReadsDeps) {
    this.details = new SharedAnswers({ name: 'room_details', maxBytes: deps.maxBytes, sizeOf: (details) => withItsAnswer(details.json.length), expiresAt: (details) => details.until });
    this.lists = new SharedAnswers({ name: 'rooms_list', maxBytes: deps.maxBytes, sizeOf: (answer) => withItsAnswer(answer.length) });
  }

  /** chat.room with the moderation lists the SDKs read, for a request that began at `began` (performance.now()). */
  async byId(app: Application, roomId: string, began: number): Promise<Buffer> {
    const version = this.deps.commits?.room(roomId) ?? (await this.versions.take(`room/${roomId}`, { version: '', since: began }, () => roomDetailsVersion(this.deps.db, roomId)));
    // A room not there: the read answers 404 (and is not kept).
    const details = await this.details.take(`${app.id}/id/${roomId}`, { version: version ?? '' }, async () => {
      const { view, until } = await this.deps.moderatedView(app, roomId);
      return { json: Buffer.from(JSON.stringify(view)), until };
    });
    return details.json;
  }

  async byCustomId(app: Application, customId: string, began: number): Promise<Buffer> {
    const details = await this.details.take(`${app.id}/custom/${customId}`, this.anyRoom(app, began), async () => ({
      json: Buffer.from(JSON.stringify(roomView(await this.deps.rooms.byCustomId(app, customId)))),
      until: Number.POSITIVE_INFINITY,
    }));
    return details.json;
  }

  /** A page of the public rooms (list.chatrooms); the lobby's pages (no filter) once per version of the rooms they show. */
  async list(app: Application, filter: RoomFilter, cursor: string, limit: number, began: number): Promise<Buffer> {
    const key = JSON.stringify([app.id, filter.name, filter.id, filter.customId, cursor, limit]);
    const filtered = filter.name !== '' || filter.id !== '' || filter.customId !== '';
    const want =
      filtered || this.deps.commits !== undefined
        ? this.anyRoom(app, began)
        : { version: (await this.versions.take(`list/${key}`, { version: '', since: began }, () => roomsPageVersion(this.deps.db, app.id, stringCursor(cursor) ?? '', limit))) ?? '' };
    return this.lists.take(key, want, async () => {
      const { items, next } = await this.deps.roomLists.rooms(app, filter, cursor, limit);
      return Buffer.from(JSON.stringify(listPayload('list.chatrooms', 'rooms', items, next)));
    });
  }

  /** Counters of several rooms (chat.room.list.extendeddetails: a lobby's participant counts), for a request that began at `began`. */
  batchDetails(app: Application, roomIds: string[], customIds: string[], entity: string[], began: number): Promise<Buffer> {
    return this.lists.take(JSON.stringify(['batch', app.id, roomIds, customIds, entity]), this.anyRoom(app, began), async () => {
      const details = await this.deps.roomLists.details(app, roomIds, customIds, entity);
      return Buffer.from(JSON.stringify({ kind: 'chat.room.list.extendeddetails', itemcount: details.length, details }));
    });
  }

  /** Freshness of an answer made from any of the app's rooms. */
  private anyRoom(app: Application, began: number): Freshness {
    return atVersionOrSince(this.deps.commits?.rooms(app.id), began);
  }
}
