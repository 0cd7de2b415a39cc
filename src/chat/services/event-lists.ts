import type { Application } from '../../apps/types.js';
import type { BoundedSearch } from '../../db/bounded-search.js';
import type { Db } from '../../db/client.js';
import { badRequest } from '../../errors.js';
import { encodeCursor, stringCursor } from '../../http/cursor.js';
import { beforeCursor, historyCursor, readBeforeCursor, readHistoryCursor } from '../feed/cursor.js';
import type { SearchBody } from '../schemas.js';
import { aroundTs, byAuthor, displayable, type EventFilter, feedBefore, historyBefore, ofType, searchEvents } from '../store/events.js';
import type { ChatEvent } from '../types.js';
import { eventsPage, type EventsPage } from '../views.js';
import type { EventViews } from './event-views.js';
import type { RoomDirectory } from './room-directory.js';

export interface EventListsDeps {
  db: Db;
  rooms: RoomDirectory;
  views: EventViews;
  searches: BoundedSearch;
}

/** The read-only listings of a room's events (besides `updates`) and the app-wide search. */
export class EventLists {
  constructor(private readonly deps: EventListsDeps) {}

  /** Displayable events as `viewer` sees them, scrolling back. */
  previous(app: Application, roomId: string, viewer: string | undefined, cursor: string, limit: number): Promise<EventsPage> {
    return this.scroll(app, roomId, displayable(viewer), cursor, limit, viewer);
  }

  ofType(app: Application, roomId: string, eventType: string, cursor: string, limit: number): Promise<EventsPage> {
    return this.scroll(app, roomId, ofType(eventType.toLowerCase()), cursor, limit);
  }

  /** The user's messages; their shadow-banned ones only to a `viewer` who may act as them. */
  byUser(app: Application, roomId: string, userId: string, viewer: string | undefined, cursor: string, limit: number): Promise<EventsPage> {
    return this.scroll(app, roomId, byAuthor(userId, viewer), cursor, limit, viewer);
  }

  /** Every stored event of the room (waiting ones too), scrolling back by id. */
  async history(app: Application, roomId: string, cursor: string, limit: number): Promise<EventsPage> {
    const { room, view } = await this.deps.rooms.cached(app, roomId);
    const found = await historyBefore(this.deps.db, room.id, readHistoryCursor(cursor), limit + 1);
    const more = found.length > limit;
    const items = more ? found.slice(1) : found;
    return eventsPage(view, await this.deps.views.views(app, items), more ? historyCursor((items[0] as ChatEvent).id) : '', more);
  }

  /** Displayable events around the time `at` (Unix milliseconds or ISO 8601): up to `older` before it and `newer` from it on. */
  async aroundTimestamp(app: Application, roomId: string, at: string, older: number, newer: number, viewer: string | undefined) {
    const { room, view } = await this.deps.rooms.cached(app, roomId);
    const ts = /^\d+$/.test(at) ? Number(at) : Date.parse(at);
    if (!Number.isFinite(ts)) throw badRequest(`The timestamp ${at} is not valid.`, { ts: 'must be Unix milliseconds or ISO 8601' });
    const around = await aroundTs(this.deps.db, room.id, ts, older, newer, viewer);
    const events = await this.deps.views.views(app, [...around.older, ...around.newer], viewer);
    return { kind: 'list.chateventsbytimestamp', room: view, ts, itemcount: events.length, olderitemcount: around.older.length, neweritemcount: around.newer.length, events };
  }

  async search(app: Application, b: SearchBody): Promise<EventsPage> {
    if (b.roomid) await this.deps.rooms.require(app, b.roomid);
    const found = await this.deps.searches.run((q) =>
      searchEvents(
        q,
        app.id,
        {
          roomId: b.roomid || undefined,
          userId: b.fromuserid || undefined,
          handlePool: b.fromhandle ? { pool: app.userPool, handle: b.fromhandle } : undefined,
          body: b.body || undefined,
          types: b.types !== undefined && b.types.length > 0 ? b.types.map((t) => t.toLowerCase()) : undefined,
        },
        stringCursor(b.cursor) ?? '',
        b.direction === 'forward',
        b.limit + 1,
      ),
    );
    const more = found.length > b.limit;
    const items = more ? found.slice(0, b.limit) : found;
    const next = more ? encodeCursor((items.at(-1) as ChatEvent).id) : '';
    return eventsPage(null, await this.deps.views.views(app, items), next, more);
  }

  /** The newest `limit` events matching `where` before the cursor, oldest first; the cursor pages further back. */
  private async scroll(app: Application, roomId: string, where: EventFilter, cursor: string, limit: number, viewer?: string): Promise<EventsPage> {
    const { room, view } = await this.deps.rooms.cached(app, roomId);
    const found = await feedBefore(this.deps.db, room.id, where, readBeforeCursor(cursor), limit + 1);
    const more = found.length > limit;
    const items = more ? found.slice(1) : found;
    return eventsPage(view, await this.deps.views.views(app, items, viewer), more ? beforeCursor((items[0] as ChatEvent).seq as number) : '', more);
  }
}
