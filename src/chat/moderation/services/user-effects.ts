import type { Application } from '../../../apps/types.js';
import type { Db } from '../../../db/client.js';
import { listPayload, pageOf, stringCursor } from '../../../http/cursor.js';
import { isoOrNull } from '../../../iso.js';
import type { UserService } from '../../../users/service.js';
import { effectActive, type User } from '../../../users/types.js';
import { userView } from '../../../users/views.js';
import type { ChatContext, EventView, Room, RoomView } from '../../context.js';
import type { RoomDetails } from './room-view.js';
import { globallyAffectedUsers } from '../store.js';
import type { BounceResult, RoomUserEffectView } from '../views.js';

export interface UserEffectsDeps {
  db: Db;
  /** The room's details after a moderation write (its view is the answer). */
  roomDetails: RoomDetails;
  users: Pick<UserService, 'require' | 'getMany'>;
  chat: Pick<ChatContext, 'rooms' | 'effects' | 'participants' | 'publish' | 'purge'>;
}

interface KeyedEffect {
  key: string;
  item: RoomUserEffectView;
}

const keyOf = (e: KeyedEffect) => e.key;

/** Bounce, room mute and shadow ban, purge, and the list of effects in force in a room. */
export class UserEffects {
  constructor(private readonly deps: UserEffectsDeps) {}

  /** Bouncing ends the user's session in the room, bars them from it and announces it with a `bounce` event. */
  async bounce(app: Application, roomId: string, userId: string, bounce: boolean, announcement: string, byUserId: string | null): Promise<BounceResult> {
    const { users, chat, roomDetails } = this.deps;
    const room = await chat.rooms.require(app, roomId);
    await users.require(app, userId);
    if (!bounce) {
      await chat.effects.clear(app, room.id, userId, 'bounce');
      return { kind: 'chat.bounceuser', event: null, room: (await roomDetails(app, room.id)).view };
    }
    await chat.effects.set(app, room.id, userId, 'bounce', { expires: null, byUserId });
    await chat.participants.remove(app, room, userId);
    const event = await chat.publish.system(app, room, { eventtype: 'bounce', userid: userId, body: announcement });
    return { kind: 'chat.bounceuser', event, room: (await roomDetails(app, room.id)).view };
  }

  /** Room-scoped mute or shadow ban; with expireSeconds it lifts itself at that time. */
  async apply(app: Application, roomId: string, userId: string, effect: 'mute' | 'shadowban', on: boolean, expireSeconds: number | undefined, byUserId: string | null): Promise<RoomView> {
    const { users, chat, roomDetails } = this.deps;
    const room = await chat.rooms.require(app, roomId);
    await users.require(app, userId);
    if (on) {
      const expires = expireSeconds !== undefined && expireSeconds > 0 ? new Date(Date.now() + expireSeconds * 1000) : null;
      await chat.effects.set(app, room.id, userId, effect, { expires, byUserId });
    } else {
      await chat.effects.clear(app, room.id, userId, effect);
    }
    return (await roomDetails(app, room.id)).view;
  }

  /**
   * Removes the user's messages in the room. Who may is settled by the caller's token (the route):
   * the bare app token is the trusted backend, whatever `byUserId`'s role.
   */
  async purge(app: Application, roomId: string, userId: string, byUserId: string): Promise<{ event: EventView; purged: number }> {
    const { users, chat } = this.deps;
    const room = await chat.rooms.require(app, roomId);
    await Promise.all([users.require(app, byUserId), users.require(app, userId)]);
    return chat.purge(app, room, userId, byUserId);
  }

  /**
   * One page of the effects in force in the room, api-v3.md's `usereffects` and, in the SDKs'
   * shape ({user, effect}), `effects`.
   */
  async list(app: Application, roomId: string, cursor: string, limit: number) {
    const room = await this.deps.chat.rooms.require(app, roomId);
    const after = stringCursor(cursor) ?? '';
    const all = await this.inForce(app, room);
    const { items, next } = pageOf(
      all.filter((e) => e.key > after),
      limit,
      keyOf,
    );
    const page = items.map((e) => e.item);
    const effects = page.map((e) => ({ user: e.user, effect: { effecttype: e.effecttype, expires: e.expires, userid: e.userid } }));
    return { ...listPayload('chat.list.roomusereffects', 'usereffects', page, next), effects };
  }

  /**
   * Room effects in force, and the global bans, mutes and shadow bans of users in or affected in
   * the room, ordered by a stable key (user, scope, effect) that pages them.
   */
  private async inForce(app: Application, room: Room): Promise<KeyedEffect[]> {
    const { db, users, chat } = this.deps;
    const effects = await chat.effects.list(app, room.id);
    const affected = await globallyAffectedUsers(db, app.userPool, room.id, [...new Set(effects.map((e) => e.userId))]);
    const byId = await users.getMany(
      app,
      effects.map((e) => e.userId),
    );
    for (const user of affected) byId.set(user.userId, user);
    const entry = (userId: string, effecttype: string, scope: 'room' | 'global', expires: Date | null, added: Date | null): KeyedEffect => {
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
