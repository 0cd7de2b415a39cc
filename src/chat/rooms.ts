import type { Application } from '../apps/types.js';
import type { Core } from '../core.js';
import { notFound } from '../errors.js';
import { SingleFlight } from '../single-flight.js';
import type { Room } from './context.js';
import { findRoom, findRoomByCustomId } from './store/rooms.js';
import { roomView, type RoomView } from './views.js';

const ROOM_CHANGED = 'chat-room-changed';
const CACHE_LIMIT = 20_000;

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

const loadKey = (appId: string, roomId: string) => `${appId}/${roomId}`;

/**
 * Rooms as the hot paths read them: from memory, dropped on every node when changed. The cached
 * row's counters (lastSeq, inRoom, lastMessageAt) may lag; reads that show them go to the database.
 */
export class RoomDirectory {
  private readonly cache = new Map<string, Cached>();
  private readonly loading = new SingleFlight<Cached | undefined>();

  constructor(private readonly core: Core) {
    core.bus.onMessage((appId, message) => {
      if (message.topic !== ROOM_CHANGED) return;
      const roomId = message.payload as string;
      this.cache.delete(roomId);
      this.loading.invalidate(loadKey(appId, roomId));
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
    const room = await findRoom(this.core.db, app.id, roomId);
    if (room === undefined) throw notFound(`Room ${roomId} not found.`);
    return room;
  }

  async byCustomId(app: Application, customId: string): Promise<Room> {
    const room = await findRoomByCustomId(this.core.db, app.id, customId);
    if (room === undefined) throw notFound(`Room with customid ${customId} not found.`);
    return room;
  }

  changed(app: Application, roomId: string): void {
    this.core.bus.broadcast(app.id, { topic: ROOM_CHANGED, payload: roomId });
  }

  private async load(app: Application, roomId: string): Promise<Cached | undefined> {
    const hit = this.cache.get(roomId);
    if (hit !== undefined && hit.room.appId === app.id) return hit;
    return this.loading.run(
      loadKey(app.id, roomId),
      async () => {
        const room = await findRoom(this.core.db, app.id, roomId);
        return room === undefined ? undefined : entryOf(room);
      },
      (entry) => {
        if (entry !== undefined) this.remember(entry);
      },
    );
  }

  private remember(entry: Cached): void {
    if (this.cache.size >= CACHE_LIMIT) this.cache.clear();
    this.cache.set(entry.room.id, entry);
  }
}
