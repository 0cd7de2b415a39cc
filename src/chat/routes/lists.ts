import { viewerOf } from '../../http/auth.js';
import { ok, param, route, type RouteDef } from '../../http/route.js';
import type { RoomFeeds } from '../feed/feed.js';
import { entryJson } from '../feed/ring.js';
import { ByTimestamp, ByType, FeedPaging, History, Search, Updates } from '../schemas.js';
import type { EventLists } from '../services/event-lists.js';
import type { EventViews } from '../services/event-views.js';
import type { RoomDirectory } from '../services/room-directory.js';
import { eventsPage } from '../views.js';

export interface ListRoutesDeps {
  rooms: RoomDirectory;
  feeds: RoomFeeds;
  eventLists: EventLists;
  views: EventViews;
}

/** The polling feed and every read-only listing of chat events. */
export function listRoutes({ rooms, feeds, eventLists, views }: ListRoutesDeps): RouteDef[] {
  return [
    route({
      method: 'GET',
      path: 'chat/rooms/:roomid/updates',
      query: Updates,
      handler: async (ctx) => {
        const began = performance.now();
        const room = await rooms.cached(ctx.app, param(ctx.params, 'roomid'));
        const viewer = viewerOf(ctx, ctx.query.userid);
        if (ctx.query.cursor === '') {
          const latest = await feeds.latest(ctx.app, room.room, ctx.query.limit, viewer, began);
          // The page a crowd shares, around the room's cached JSON.
          if (latest.tail !== undefined) return { data: null, shared: { before: `{"kind":"list.chatevents","room":${room.json}`, json: latest.tail, after: '' } };
          return ok(eventsPage(room.view, latest.events, latest.cursor, latest.more));
        }
        const read = await feeds.after(ctx.app, room.room, ctx.query.cursor, ctx.query.limit, viewer);
        const shown = read.entries.map((e) => e.view);
        const seen = await views.forViewer(ctx.app, viewer, shown);
        // The hot path: assembled from JSON already made (room, ring entries) instead of serialized per poll;
        // the events as everyone sees them (no reaction of the viewer's own in them) as bytes shared by the pollers.
        const events =
          seen === shown || seen.every((view, i) => view === shown[i])
            ? await feeds.eventsJson(read)
            : read.entries.map((e, i) => (seen[i] === e.view ? entryJson(e) : JSON.stringify(seen[i]))).join(',');
        const positions = ctx.query.positions ? `,"positions":[${read.entries.map((e) => `{"seq":${e.seq},"cursor":${JSON.stringify(e.cursor)}}`).join(',')}]` : '';
        const head = `{"kind":"list.chatevents","room":${room.json},"cursor":${JSON.stringify(read.cursor)},"more":${read.more},"itemcount":${read.entries.length},"events":[`;
        const after = `]${positions}}`;
        return typeof events === 'string' ? { data: null, json: `${head}${events}${after}` } : { data: null, shared: { before: head, json: events, after } };
      },
    }),
    route({
      method: 'GET',
      path: 'chat/rooms/:roomid/listpreviousevents',
      query: FeedPaging,
      handler: async (ctx) => ok(await eventLists.previous(ctx.app, param(ctx.params, 'roomid'), viewerOf(ctx, ctx.query.userid), ctx.query.cursor, ctx.query.limit)),
    }),
    route({
      method: 'GET',
      path: 'chat/rooms/:roomid/listeventsbytype',
      query: ByType,
      handler: async (ctx) => ok(await eventLists.ofType(ctx.app, param(ctx.params, 'roomid'), ctx.query.eventtype, ctx.query.cursor, ctx.query.limit)),
    }),
    route({
      method: 'GET',
      path: 'chat/rooms/:roomid/messagesbyuser/:userid',
      query: FeedPaging,
      handler: async (ctx) => {
        const userid = param(ctx.params, 'userid');
        // The user's shadow-banned messages only to a reader who may act as them.
        return ok(await eventLists.byUser(ctx.app, param(ctx.params, 'roomid'), userid, viewerOf(ctx, userid), ctx.query.cursor, ctx.query.limit));
      },
    }),
    route({
      method: 'GET',
      path: 'chat/rooms/:roomid/listeventshistory',
      query: History,
      handler: async (ctx) => ok(await eventLists.history(ctx.app, param(ctx.params, 'roomid'), ctx.query.cursor, ctx.query.limit)),
    }),
    route({
      method: 'GET',
      path: 'chat/rooms/:roomid/eventsbytimestamp/list/:ts',
      query: ByTimestamp,
      handler: async (ctx) => {
        const q = ctx.query;
        return ok(await eventLists.aroundTimestamp(ctx.app, param(ctx.params, 'roomid'), param(ctx.params, 'ts'), q.limitolder, q.limitnewer, viewerOf(ctx, q.userid)));
      },
    }),
    route({
      method: 'POST',
      path: 'chat/searchevents',
      writes: false,
      access: 'public',
      limit: 'searches',
      body: Search,
      handler: async (ctx) => ok(await eventLists.search(ctx.app, ctx.body)),
    }),
  ];
}
