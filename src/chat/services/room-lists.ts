import type { Application } from '../../apps/types.js';
import type { BoundedSearch } from '../../db/bounded-search.js';
import type { Db } from '../../db/client.js';
import { badRequest } from '../../errors.js';
import { pageOf, stringCursor } from '../../http/cursor.js';
import type { UserService } from '../../users/service.js';
import { listParticipants, listSubscriptions } from '../store/participants.js';
import { findRooms, listRooms, type RoomFilter } from '../store/rooms.js';
import type { Room } from '../types.js';
import { participantView, roomDetailsView, roomView, subscriptionView } from '../views.js';

const isFiltered = (f: RoomFilter) => f.name !== '' || f.id !== '' || f.customId !== '';

export interface RoomListsDeps {
  db: Db;
  users: UserService;
  searches: BoundedSearch;
}

/** Read-only listings of rooms and of who is in them, one page (views and the next cursor) at a time. */
export class RoomLists {
  constructor(private readonly deps: RoomListsDeps) {}

  /** Public rooms in id order; the filters are case-insensitive substrings, searched within bounds. */
  async rooms(app: Application, filter: RoomFilter, cursor: string, limit: number) {
    const after = stringCursor(cursor) ?? '';
    const found = isFiltered(filter) ? await this.deps.searches.run((q) => listRooms(q, app.id, filter, after, limit + 1)) : await listRooms(this.deps.db, app.id, filter, after, limit + 1);
    const { items, next } = pageOf(found, limit, (r) => r.id);
    return { items: items.map((r) => roomView(r)), next };
  }

  /** `entity` names what each room's entry shows: room, numparticipants, lastmessagetime. */
  async details(app: Application, roomIds: string[], customIds: string[], entity: string[]) {
    if (roomIds.length === 0 && customIds.length === 0) throw badRequest('You must specify at least one roomid or customid', { roomid: 'give a roomid or customid' });
    const found = await findRooms(this.deps.db, app.id, roomIds, customIds);
    return found.map((r) => roomDetailsView(r, entity));
  }

  async participants(app: Application, room: Room, cursor: string, limit: number) {
    const found = await listParticipants(this.deps.db, room.id, stringCursor(cursor) ?? '', limit + 1);
    const { items, next } = pageOf(found, limit, (p) => p.userId);
    const users = await this.deps.users.getMany(
      app,
      items.map((p) => p.userId),
    );
    return { items: items.map((p) => participantView(p, users.get(p.userId))), next };
  }

  /** The rooms the user is subscribed to; 404 for an unknown user. */
  async subscriptions(app: Application, userId: string, cursor: string, limit: number) {
    await this.deps.users.require(app, userId);
    const found = await listSubscriptions(this.deps.db, app.id, userId, stringCursor(cursor) ?? '', limit + 1);
    const { items, next } = pageOf(found, limit, (s) => s.room.id);
    return { items: items.map((s) => subscriptionView(s.sub, s.room)), next };
  }
}
