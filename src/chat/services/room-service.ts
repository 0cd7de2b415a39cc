import type { Application } from '../../apps/types.js';
import type { Db } from '../../db/client.js';
import { isUniqueViolation } from '../../db/errors.js';
import { blockedByRule, conflict, forbidden } from '../../errors.js';
import { newId } from '../../ids.js';
import { hasProfanity } from '../../text/profanity.js';
import type { UserService } from '../../users/service.js';
import { effectActive, type UserInput } from '../../users/types.js';
import { endLive } from '../../realtime/live.js';
import type { Bus } from '../../realtime/bus.js';
import type { RoomFeeds } from '../feed/feed.js';
import { ROOM_KIND } from '../feed/topics.js';
import type { RoomBody } from '../schemas.js';
import { deleteRoomEvents } from '../store/events.js';
import { deleteRoomPeople, isAllowed, setPermission } from '../store/participants.js';
import { deleteRoom, insertRoom, updateRoom, type RoomPatch } from '../store/rooms.js';
import type { Room } from '../types.js';
import type { EventView } from '../views.js';
import type { Participation } from './participation.js';
import type { Posting } from './posting.js';
import type { RoomDirectory } from './room-directory.js';
import type { RoomEffects } from './room-effects.js';

export interface RoomServiceDeps {
  db: Db;
  bus: Bus;
  users: UserService;
  rooms: RoomDirectory;
  effects: RoomEffects;
  participation: Participation;
  posting: Posting;
  feeds: RoomFeeds;
}

function patchOf(body: RoomBody): RoomPatch {
  const p: RoomPatch = {};
  if (body.name !== undefined) p.name = body.name;
  if (body.description !== undefined) p.description = body.description;
  if (body.pictureurl !== undefined) p.pictureUrl = body.pictureurl;
  if (body.moderation !== undefined) p.moderation = body.moderation;
  if (body.enableactions !== undefined) p.enableActions = body.enableactions;
  if (body.enableenterandexit !== undefined) p.enableEnterAndExit = body.enableenterandexit;
  if (body.enableprofanityfilter !== undefined) p.enableProfanityFilter = body.enableprofanityfilter;
  if (body.enableautoexpiresessions !== undefined) p.enableAutoExpireSessions = body.enableautoexpiresessions;
  if (body.delaymessageseconds !== undefined) p.delayMessageSeconds = body.delaymessageseconds;
  if (body.roomisopen !== undefined) p.open = body.roomisopen;
  if (body.maxreports !== undefined) p.maxReports = body.maxreports;
  if (body.customid !== undefined) p.customId = body.customid === '' ? null : body.customid;
  if (body.customtype !== undefined) p.customType = body.customtype;
  if (body.custompayload !== undefined) p.customPayload = body.custompayload;
  if (body.customfield1 !== undefined) p.customField1 = body.customfield1;
  if (body.customfield2 !== undefined) p.customField2 = body.customfield2;
  if (body.customtags !== undefined) p.customTags = body.customtags;
  if (body.private !== undefined) p.private = body.private;
  if (body.ownerid !== undefined) p.ownerId = body.ownerid === '' ? null : body.ownerid;
  return p;
}

/** In a room with the profanity filter on, a profane display name or handle is refused before anything is written (api-v3.md, Join Room). */
function assertCleanName(input: UserInput): void {
  if (input.displayname !== undefined && hasProfanity(input.displayname)) throw blockedByRule('The display name contains words that are not allowed in this room.');
  if (input.handle !== undefined && hasProfanity(input.handle)) throw blockedByRule('The handle contains words that are not allowed in this room.');
}

async function unique<T>(customId: string | null | undefined, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict(`The customid ${customId ?? ''} is already used by another room.`, { customid: 'is already in use' });
    throw err;
  }
}

/** Room lifecycle (create, update, open/close, delete, reset) and joining/leaving. */
export class RoomService {
  constructor(private readonly deps: RoomServiceDeps) {}

  async create(app: Application, body: RoomBody & { name: string }): Promise<Room> {
    // enter/exit events are opt-in on create (api-surface.md, settled from the SDKs).
    const patch = { enableEnterAndExit: false, ...patchOf(body) };
    return unique(patch.customId, () => insertRoom(this.deps.db, { ...patch, name: body.name, id: newId(), appId: app.id }));
  }

  /** Applies the create body; opening or closing emits `roomopened` / `roomclosed`. */
  async update(app: Application, room: Room, body: RoomBody): Promise<Room> {
    const patch = patchOf(body);
    const updated = await unique(patch.customId, async () => (await updateRoom(this.deps.db, app.id, room.id, patch)) ?? room);
    this.deps.rooms.changed(app, room.id);
    if (updated.open !== room.open) await this.deps.posting.system(app, updated, { eventtype: updated.open ? 'roomopened' : 'roomclosed', userid: null });
    return updated;
  }

  async delete(app: Application, room: Room): Promise<{ room: Room; deletedEvents: number }> {
    const deletedEvents = await this.deps.db.transaction(async (tx) => {
      const n = await deleteRoomEvents(tx, room.id);
      await deleteRoomPeople(tx, room.id);
      await deleteRoom(tx, app.id, room.id);
      return n;
    });
    await this.deps.effects.clearRoom(app, room.id);
    this.deps.rooms.changed(app, room.id);
    this.deps.feeds.forget(app, room.id);
    endLive(this.deps.bus, app.id, ROOM_KIND, room.id, 'deleted');
    return { room, deletedEvents };
  }

  /** Removes every event (and with `removeEffects` the room's user effects). The feed's seq keeps counting. */
  async reset(app: Application, room: Room, removeEffects: boolean): Promise<{ deletedEvents: number; removedEffects: number }> {
    const deletedEvents = await deleteRoomEvents(this.deps.db, room.id);
    const removedEffects = removeEffects ? await this.deps.effects.clearRoom(app, room.id) : 0;
    this.deps.feeds.forget(app, room.id);
    this.deps.rooms.changed(app, room.id);
    return { deletedEvents, removedEffects };
  }

  /** Joins the user (made or updated from `input`); answers with the room as it now is and its newest `limit` events. */
  async join(app: Application, room: Room, input: UserInput, limit: number) {
    if (room.enableProfanityFilter) assertCleanName(input);
    if (room.private && !(await isAllowed(this.deps.db, room.id, input.userid))) throw forbidden(`Room ${room.id} is private; user ${input.userid} has not been granted permission to join.`);
    // A fan new to the app is created and joined by one statement and has nothing to check; anyone else is read first.
    const newcomer = this.deps.users.newcomer(app, input);
    const stamp = this.deps.users.stamp();
    const fresh = newcomer === undefined ? undefined : await this.deps.participation.joinNew(app, room, newcomer);
    if (fresh !== undefined) this.deps.users.created(app, fresh.user, stamp);
    const existing = fresh === undefined ? await this.deps.users.get(app, input.userid) : undefined;
    if (existing !== undefined && effectActive(existing.banned, existing.bannedUntil)) throw forbidden(`User ${input.userid} is banned.`);
    if (existing !== undefined && (await this.deps.effects.has(app, room.id, input.userid, 'bounce'))) {
      throw forbidden(`User ${input.userid} has been bounced from room ${room.id} and cannot join it.`);
    }
    const user = fresh?.user ?? (await this.deps.users.ensure(app, input, { onHandleTaken: 'variant', known: { user: existing } }));
    const { entered, subscription, room: counters, eventsRevision } = fresh?.joined ?? (await this.deps.participation.join(app, room, user.userId));
    const announced = entered && room.enableEnterAndExit;
    if (announced) await this.deps.posting.system(app, room, { eventtype: 'enter', userid: user.userId });
    // The counters the join's own write returned, unless the enter event moved lastmessagetime since.
    const joined = announced ? await this.deps.rooms.fresh(app, room.id) : { ...room, ...counters };
    // A user new to the app has nothing only they see: they get the page the crowd joining with them shares.
    const latest =
      existing === undefined && !announced
        ? await this.deps.feeds.latestShared(app, joined, limit, { seq: counters.lastSeq, revision: eventsRevision })
        : await this.deps.feeds.latest(app, joined, limit, user.userId, performance.now());
    return { user, subscription, room: joined, latest };
  }

  async exit(app: Application, room: Room, userId: string): Promise<EventView | null> {
    await this.deps.users.require(app, userId);
    const left = await this.deps.participation.leave(app, room, userId);
    if (left && room.enableEnterAndExit) return this.deps.posting.system(app, room, { eventtype: 'exit', userid: userId });
    return null;
  }

  async setPermission(app: Application, room: Room, userId: string, allow: boolean): Promise<void> {
    await setPermission(this.deps.db, app.id, room.id, userId, allow);
  }
}
