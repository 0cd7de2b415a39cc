import type { Application } from '../../../apps/types.js';
import type { Core } from '../../../core.js';
import { effectActive, type User } from '../../../users/types.js';
import { userView, type UserView } from '../../../users/views.js';
import type { ChatContext, EventView, Room, RoomView } from '../../context.js';
import { moderatedRoomView } from '../room-view.js';
import { globallyAffectedUsers } from '../store.js';
import { isoOrNull } from '../../../iso.js';

export interface BounceResult {
  kind: 'chat.bounceuser';
  event: EventView | null;
  room: RoomView;
}

export interface RoomUserEffectView {
  kind: 'chat.roomusereffect';
  userid: string;
  user: UserView | null;
  /** ban, mute, shadowban (room or global), bounce, flag (room). */
  effecttype: string;
  scope: 'room' | 'global';
  expires: string | null;
  /** When a room effect was set; null for global effects. */
  added: string | null;
}

/** Bounce, room mute and shadow ban, purge, and the list of effects in force in a room. */
export class UserEffects {
  constructor(
    private readonly core: Core,
    private readonly chat: ChatContext,
  ) {}

  /** Bouncing ends the user's session in the room, bars them from it and announces it with a `bounce` event. */
  async bounce(app: Application, room: Room, userId: string, bounce: boolean, announcement: string, byUserId: string | null): Promise<BounceResult> {
    await this.core.users.require(app, userId);
    if (!bounce) {
      await this.chat.effects.clear(app, room.id, userId, 'bounce');
      return { kind: 'chat.bounceuser', event: null, room: await moderatedRoomView(this.chat, this.core.db, app, room) };
    }
    await this.chat.effects.set(app, room.id, userId, 'bounce', { expires: null, byUserId });
    await this.chat.participants.remove(app, room, userId);
    const event = await this.chat.publish.system(app, room, { eventtype: 'bounce', userid: userId, body: announcement });
    const after = await this.chat.rooms.require(app, room.id);
    return { kind: 'chat.bounceuser', event, room: await moderatedRoomView(this.chat, this.core.db, app, after) };
  }

  /** Room-scoped mute or shadow ban; with expireSeconds it lifts itself at that time. */
  async apply(app: Application, room: Room, userId: string, effect: 'mute' | 'shadowban', on: boolean, expireSeconds: number | undefined, byUserId: string | null): Promise<RoomView> {
    await this.core.users.require(app, userId);
    if (on) {
      const expires = expireSeconds !== undefined && expireSeconds > 0 ? new Date(Date.now() + expireSeconds * 1000) : null;
      await this.chat.effects.set(app, room.id, userId, effect, { expires, byUserId });
    } else {
      await this.chat.effects.clear(app, room.id, userId, effect);
    }
    return moderatedRoomView(this.chat, this.core.db, app, room);
  }

  /**
   * Removes the user's messages in the room. Who may is settled by the caller's token (the route):
   * the bare app token is the trusted backend, whatever `byUserId`'s role.
   */
  async purge(app: Application, room: Room, userId: string, byUserId: string): Promise<{ event: EventView; purged: number }> {
    await Promise.all([this.core.users.require(app, byUserId), this.core.users.require(app, userId)]);
    return this.chat.purge(app, room, userId, byUserId);
  }

  /**
   * Room effects in force, and the global bans, mutes and shadow bans of users in or affected in
   * the room, ordered by a stable key (user, scope, effect) that pages them.
   */
  async list(app: Application, room: Room): Promise<{ key: string; item: RoomUserEffectView }[]> {
    const effects = await this.chat.effects.list(app, room.id);
    const affected = await globallyAffectedUsers(this.core.db, app.userPool, room.id, [...new Set(effects.map((e) => e.userId))]);
    const byId = await this.core.users.getMany(
      app,
      effects.map((e) => e.userId),
    );
    for (const user of affected) byId.set(user.userId, user);
    const entry = (userId: string, effecttype: string, scope: 'room' | 'global', expires: Date | null, added: Date | null): { key: string; item: RoomUserEffectView } => {
      const user = byId.get(userId);
      return {
        // The key is the page cursor: \u0001 sorts below any other character a user id holds (NUL is refused), and a cursor may not hold NUL.
        key: `${userId}\u0001${scope}\u0001${effecttype}`,
        item: { kind: 'chat.roomusereffect', userid: userId, user: user === undefined ? null : userView(user), effecttype, scope, expires: isoOrNull(expires), added: isoOrNull(added) },
      };
    };
    return [
      ...affected.flatMap((u) => globalEffects(u).map((g) => entry(u.userId, g.effecttype, 'global', g.until, null))),
      ...effects.map((e) => entry(e.userId, e.effect, 'room', e.expires, e.added)),
    ].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }
}

function globalEffects(user: User): { effecttype: string; until: Date | null }[] {
  const now = Date.now();
  const found: { effecttype: string; until: Date | null }[] = [];
  if (effectActive(user.banned, user.bannedUntil, now)) found.push({ effecttype: 'ban', until: user.bannedUntil });
  if (effectActive(user.muted, user.mutedUntil, now)) found.push({ effecttype: 'mute', until: user.mutedUntil });
  if (effectActive(user.shadowBanned, user.shadowBannedUntil, now)) found.push({ effecttype: 'shadowban', until: user.shadowBannedUntil });
  return found;
}
