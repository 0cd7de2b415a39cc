import type { Application } from '../../apps/types.js';
import { ReplicatedCache } from '../../cache/replicated-cache.js';
import type { Db } from '../../db/client.js';
import { ReadBatcher, readByScope } from '../../db/read-batcher.js';
import { notFound } from '../../errors.js';
import { internal } from '../../internal-messages.js';
import type { Logger } from '../../logger.js';
import type { Bus } from '../../realtime/bus.js';
import { findRoom, findRoomsAnyApp, findRoomsByCustomId } from '../store/rooms.js';
import type { RoomCounters } from '../store/participants.js';
import type { Room } from '../types.js';
import { roomView, type RoomView } from '../views.js';

export interface RoomDirectoryDeps {
  db: Db;
  bus: Bus;
  log: Logger;
  /** Rooms kept in memory (ROOM_CACHE_ENTRIES). */
  cacheEntries: number;
}

/** An app's custom id, as the custom-id reads key it. */
interface CustomId {
  appId: string;
  customId: string;
}
const customKey = (c: CustomId) => `${c.appId}\u0000${c.customId}`;

interface Cached {
  room: Room;
  view: RoomView;
  /** The view as JSON, for responses assembled from cached parts. */
  json: string;
}

function entryOf(room: Room): Cached {
  const view = roomView(room);
  return { room, view, json: JSON.stringify(view) };
}

/**
 * Rooms as the hot paths read them: from memory, dropped on every node when changed. The cached
 * row's counters (lastSeq, inRoom, lastMessageAt) may lag; reads that show them go to the database.
 * Entries are keyed by room id alone (ids are unique across apps) and answer only their own app.
 */
export class RoomDirectory {
  private readonly cache: ReplicatedCache<Cached>;
  /** Rooms by id and by custom id, each read together with the others asked for at the same moment (a crowd joining one, readers opening many). */
  private readonly byId: ReadBatcher<string, Room>;
  private readonly byCustom: ReadBatcher<CustomId, Room>;

  constructor(private readonly deps: RoomDirectoryDeps) {
    this.cache = new ReplicatedCache<Cached>(deps.bus, { invalidation: internal.roomChanged, limit: deps.cacheEntries });
    this.byId = new ReadBatcher({ read: (ids) => findRoomsAnyApp(deps.db, ids), keyOf: (id) => id, keyOfValue: (room) => room.id, log: deps.log, name: 'rooms_by_id' });
    this.byCustom = new ReadBatcher({
      read: (keys) =>
        readByScope(
          keys,
          (k) => k.appId,
          (appId, ofApp) =>
            findRoomsByCustomId(
              deps.db,
              appId,
              ofApp.map((k) => k.customId),
            ),
        ),
      keyOf: customKey,
      keyOfValue: (room) => customKey({ appId: room.appId, customId: room.customId ?? '' }),
      log: deps.log,
      name: 'rooms_by_custom_id',
    });
  }

  /** The room from memory when known (hot paths). */
  async cached(app: Application, roomId: string): Promise<Cached> {
    const entry = await this.load(app, roomId);
    if (entry === undefined) throw notFound(`Room ${roomId} not found.`);
    return entry;
  }

  async get(app: Application, roomId: string): Promise<Room | undefined> {
    return (await this.load(app, roomId))?.room;
  }

  async require(app: Application, roomId: string): Promise<Room> {
    return (await this.cached(app, roomId)).room;
  }

  /** Read from the database, for responses that show the counters. */
  async fresh(app: Application, roomId: string): Promise<Room> {
    const room = await findRoom(this.deps.db, app.id, roomId);
    if (room === undefined) throw notFound(`Room ${roomId} not found.`);
    return room;
  }

  /** Read from the database after the request began, in one statement with the others asked for meanwhile. */
  async byCustomId(app: Application, customId: string): Promise<Room> {
    const room = await this.byCustom.get({ appId: app.id, customId });
    if (room === undefined) throw notFound(`Room with customid ${customId} not found.`);
    return room;
  }

  changed(app: Application, roomId: string): void {
    this.cache.invalidate(app.id, roomId);
  }

  /** For `countersMoved`: taken before the write. */
  stamp(): number {
    return this.cache.stamp();
  }

  /**
   * After a write that moved the room's counters (a batch of joins): every node drops the room,
   * this one keeps it with the counters the write returned (unless a change heard during the write
   * may be newer), so the crowd's next requests need not read the room again.
   */
  countersMoved(appId: string, roomId: string, counters: RoomCounters, stamp: number): void {
    const entry = this.cache.peek(roomId);
    if (entry === undefined || entry.room.appId !== appId) this.cache.invalidate(appId, roomId);
    else this.cache.changed(appId, roomId, entryOf({ ...entry.room, ...counters }), stamp);
  }

  private async load(app: Application, roomId: string): Promise<Cached | undefined> {
    const entry = this.cache.peek(roomId) ?? (await this.cache.load(roomId, () => this.read(roomId)));
    return entry?.room.appId === app.id ? entry : undefined;
  }

  /** Whichever app asked first, so callers of several apps can share the read. */
  private async read(roomId: string): Promise<Cached | undefined> {
    const room = await this.byId.get(roomId);
    return room === undefined ? undefined : entryOf(room);
  }
}
