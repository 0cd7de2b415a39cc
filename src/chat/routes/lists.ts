import { and, eq } from 'drizzle-orm';
import type { Core } from '../../core.js';
import { chatEvents } from '../../db/schema/chat.js';
import { viewerOf } from '../../http/auth.js';
import { encodeCursor, stringCursor } from '../../http/cursor.js';
import { badRequest } from '../../errors.js';
import { ok, param, route, type RequestContext, type RouteDef } from '../../http/route.js';
import type { Chat } from '../chat.js';
import type { ChatEvent } from '../context.js';
import { beforeCursor, historyCursor, readBeforeCursor, readHistoryCursor } from '../feed/cursor.js';
import { entryJson } from '../feed/ring.js';
import { ByTimestamp, ByType, FeedPaging, History, Search } from '../schemas.js';
import { aroundTs, displayable, feedBefore, historyBefore, searchEvents } from '../store/events.js';
import type { RoomView } from '../views.js';

interface Page {
  kind: string;
  room: RoomView | null;
  cursor: string;
  more: boolean;
  itemcount: number;
  events: unknown[];
}

const page = (room: RoomView | null, events: unknown[], cursor: string, more: boolean): Page => ({ kind: 'list.chatevents', room, cursor, more, itemcount: events.length, events });

/** The polling feed and every read-only listing of chat events. */
export function listRoutes(core: Core, chat: Chat): RouteDef[] {
  const { rooms, feeds, views } = chat;

  /** Scroll-back lists: the newest `limit` events before the cursor, oldest first; the cursor pages further back. */
  const scroll = async (ctx: RequestContext, roomId: string, where: Parameters<typeof feedBefore>[2], cursor: string, limit: number) => {
    const { room, view } = await rooms.cached(ctx.app, roomId);
    const found = await feedBefore(core.db, room.id, where, readBeforeCursor(cursor), limit + 1);
    const more = found.length > limit;
    const items = more ? found.slice(1) : found;
    return ok(page(view, await views.views(ctx.app, items), more ? beforeCursor((items[0] as ChatEvent).seq as number) : '', more));
  };

  return [
    route({
      method: 'GET',
      path: 'chat/rooms/:roomid/updates',
      query: FeedPaging,
      handler: async (ctx) => {
        const room = await rooms.cached(ctx.app, param(ctx.params, 'roomid'));
        const viewer = viewerOf(ctx, ctx.query.userid);
        if (ctx.query.cursor === '') {
          const latest = await feeds.latest(ctx.app, room.room, ctx.query.limit, viewer);
          return ok(page(room.view, latest.events, latest.cursor, latest.more));
        }
        const read = await feeds.after(ctx.app, room.room, ctx.query.cursor, ctx.query.limit, viewer);
        // The hot path: assembled from JSON already made (room, ring entries) instead of serialized per poll.
        const events = read.entries.map(entryJson).join(',');
        return {
          data: null,
          json: `{"kind":"list.chatevents","room":${room.json},"cursor":${JSON.stringify(read.cursor)},"more":${read.more},"itemcount":${read.entries.length},"events":[${events}]}`,
        };
      },
    }),
    route({
      method: 'GET',
      path: 'chat/rooms/:roomid/listpreviousevents',
      query: FeedPaging,
      handler: (ctx) => scroll(ctx, param(ctx.params, 'roomid'), displayable(viewerOf(ctx, ctx.query.userid)), ctx.query.cursor, ctx.query.limit),
    }),
    route({
      method: 'GET',
      path: 'chat/rooms/:roomid/listeventsbytype',
      query: ByType,
      handler: (ctx) => scroll(ctx, param(ctx.params, 'roomid'), eq(chatEvents.eventType, ctx.query.eventtype.toLowerCase()), ctx.query.cursor, ctx.query.limit),
    }),
    route({
      method: 'GET',
      path: 'chat/rooms/:roomid/messagesbyuser/:userid',
      query: FeedPaging,
      handler: (ctx) => {
        const userid = param(ctx.params, 'userid');
        // The user's shadow-banned messages only to a reader who may act as them.
        return scroll(ctx, param(ctx.params, 'roomid'), and(eq(chatEvents.userId, userid), displayable(viewerOf(ctx, userid))), ctx.query.cursor, ctx.query.limit);
      },
    }),
    route({
      method: 'GET',
      path: 'chat/rooms/:roomid/listeventshistory',
      query: History,
      handler: async (ctx) => {
        const { room, view } = await rooms.cached(ctx.app, param(ctx.params, 'roomid'));
        const limit = ctx.query.limit;
        const found = await historyBefore(core.db, room.id, readHistoryCursor(ctx.query.cursor), limit + 1);
        const more = found.length > limit;
        const items = more ? found.slice(1) : found;
        return ok(page(view, await views.views(ctx.app, items), more ? historyCursor((items[0] as ChatEvent).id) : '', more));
      },
    }),
    route({
      method: 'GET',
      path: 'chat/rooms/:roomid/eventsbytimestamp/list/:ts',
      query: ByTimestamp,
      handler: async (ctx) => {
        const { room, view } = await rooms.cached(ctx.app, param(ctx.params, 'roomid'));
        const raw = param(ctx.params, 'ts');
        const ts = /^\d+$/.test(raw) ? Number(raw) : Date.parse(raw);
        if (!Number.isFinite(ts)) throw badRequest(`The timestamp ${raw} is not valid.`, { ts: 'must be Unix milliseconds or ISO 8601' });
        const q = ctx.query;
        const around = await aroundTs(core.db, room.id, ts, q.limitolder, q.limitnewer, viewerOf(ctx, q.userid));
        const events = await views.views(ctx.app, [...around.older, ...around.newer]);
        return ok({ kind: 'list.chateventsbytimestamp', room: view, ts, itemcount: events.length, olderitemcount: around.older.length, neweritemcount: around.newer.length, events });
      },
    }),
    route({
      method: 'POST',
      path: 'chat/searchevents',
      access: 'public',
      body: Search,
      handler: async (ctx) => {
        const b = ctx.body;
        if (b.roomid) await rooms.require(ctx.app, b.roomid);
        const forward = b.direction === 'forward';
        const after = stringCursor(b.cursor) ?? '';
        const found = await searchEvents(
          core.db,
          ctx.app.id,
          {
            roomId: b.roomid || undefined,
            userId: b.fromuserid || undefined,
            handlePool: b.fromhandle ? { pool: ctx.app.userPool, handle: b.fromhandle } : undefined,
            body: b.body || undefined,
            types: b.types !== undefined && b.types.length > 0 ? b.types.map((t) => t.toLowerCase()) : undefined,
          },
          after,
          forward,
          b.limit + 1,
        );
        const more = found.length > b.limit;
        const items = more ? found.slice(0, b.limit) : found;
        const next = more ? encodeCursor((items.at(-1) as ChatEvent).id) : '';
        return ok(page(null, await views.views(ctx.app, items), next, more));
      },
    }),
  ];
}
