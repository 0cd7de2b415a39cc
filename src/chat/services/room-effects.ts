import type { Application } from '../../apps/types.js';
import { ReplicatedCache } from '../../cache/replicated-cache.js';
import type { Db } from '../../db/client.js';
import { internal } from '../../internal-messages.js';
import type { Bus } from '../../realtime/bus.js';
import { deleteEffect, deleteRoomEffects, effectsInForce, upsertEffect } from '../store/effects.js';
import type { RoomEffect, RoomEffectKind } from '../types.js';

export interface RoomEffectsDeps {
  db: Db;
  bus: Bus;
  /** Rooms kept in memory (ROOM_CACHE_ENTRIES). */
  cacheEntries: number;
}

const inForce = (e: RoomEffect, now: number) => e.expires === null || e.expires.getTime() > now;

/**
 * Room user effects (bounce, mute, shadowban, flag), read on every command: each room's list is
 * kept in memory and dropped on every node when it changes. Expiry is judged at read time.
 */
export class RoomEffects {
  private readonly cache: ReplicatedCache<RoomEffect[]>;

  constructor(private readonly deps: RoomEffectsDeps) {
    this.cache = new ReplicatedCache<RoomEffect[]>(deps.bus, { invalidation: internal.roomEffectsChanged, limit: deps.cacheEntries });
  }

  async list(_app: Application, roomId: string): Promise<RoomEffect[]> {
    const effects = this.cache.peek(roomId) ?? (await this.cache.load(roomId, () => effectsInForce(this.deps.db, [roomId]))) ?? [];
    const now = Date.now();
    return effects.filter((e) => inForce(e, now));
  }

  async active(app: Application, roomId: string, userId: string): Promise<RoomEffect[]> {
    return (await this.list(app, roomId)).filter((e) => e.userId === userId);
  }

  async has(app: Application, roomId: string, userId: string, effect: RoomEffectKind): Promise<boolean> {
    return (await this.active(app, roomId, userId)).some((e) => e.effect === effect);
  }

  async set(app: Application, roomId: string, userId: string, effect: RoomEffectKind, options: { expires: Date | null; reason?: string; byUserId?: string | null }): Promise<void> {
    await upsertEffect(this.deps.db, app.id, roomId, userId, effect, options.expires, options.reason ?? '', options.byUserId ?? null);
    this.changed(app, roomId);
  }

  async clear(app: Application, roomId: string, userId: string, effect: RoomEffectKind): Promise<boolean> {
    const gone = await deleteEffect(this.deps.db, roomId, userId, effect);
    this.changed(app, roomId);
    return gone;
  }

  async clearRoom(app: Application, roomId: string): Promise<number> {
    const n = await deleteRoomEffects(this.deps.db, roomId);
    this.changed(app, roomId);
    return n;
  }

  private changed(app: Application, roomId: string): void {
    this.cache.invalidate(app.id, roomId);
  }
}
