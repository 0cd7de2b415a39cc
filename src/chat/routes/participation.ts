import type * as v from 'valibot';
import type { Application } from '../../apps/types.js';
import { assertActingAs, roleIfTrusted } from '../../http/auth.js';
import { listPayload } from '../../http/cursor.js';
import { ok, param, route, type RequestContext, type RouteDef } from '../../http/route.js';
import { userView } from '../../users/views.js';
import { beforeCursor } from '../feed/cursor.js';
import { Join, Paging, UserOnly } from '../schemas.js';
import type { Participation } from '../services/participation.js';
import type { RoomDirectory } from '../services/room-directory.js';
import type { RoomLists } from '../services/room-lists.js';
import type { RoomService } from '../services/room-service.js';
import type { Room } from '../types.js';
import { eventsPage, roomView, subscriptionView } from '../views.js';

export interface ParticipationRoutesDeps {
  rooms: RoomDirectory;
  roomService: RoomService;
  participation: Participation;
  roomLists: RoomLists;
}

/** Join, exit, touch, participants and a user's subscriptions. */
export function participationRoutes({ rooms, roomService, participation, roomLists }: ParticipationRoutesDeps): RouteDef[] {
  const join = async (ctx: RequestContext<v.InferOutput<typeof Join>>, app: Application, found: Room) => {
    const { limit, userid, role, ...fields } = ctx.body;
    assertActingAs(ctx, userid);
    const { user, room, latest, subscription } = await roomService.join(app, found, { userid, ...fields, role: roleIfTrusted(ctx, role) }, limit);
    // Assembled around the events page, which a crowd joining together shares as one Buffer, copied into each answer.
    const events = latest.tail === undefined ? [JSON.stringify(eventsPage(null, latest.events, latest.cursor, latest.more))] : ['{"kind":"list.chatevents","room":null', latest.tail];
    const json = [
      `{"kind":"chat.joinroom","user":${JSON.stringify(userView(user))},"room":${JSON.stringify(roomView(room))},"eventscursor":`,
      ...events,
      `,"previouseventscursor":${JSON.stringify(latest.more ? beforeCursor(latest.oldestSeq) : '')},"subscription":${JSON.stringify(subscriptionView(subscription, room))}}`,
    ];
    return { data: null, json };
  };

  return [
    route({
      method: 'POST',
      path: 'chat/rooms/:roomid/join',
      limit: 'joins',
      body: Join,
      handler: async (ctx) => join(ctx, ctx.app, await rooms.require(ctx.app, param(ctx.params, 'roomid'))),
    }),
    route({
      method: 'POST',
      path: 'chat/roomsbycustomid/:customid/join',
      limit: 'joins',
      body: Join,
      handler: async (ctx) => join(ctx, ctx.app, await rooms.byCustomId(ctx.app, param(ctx.params, 'customid'))),
    }),
    route({
      method: 'POST',
      path: 'chat/rooms/:roomid/exit',
      limit: 'joins',
      body: UserOnly,
      handler: async (ctx) => {
        assertActingAs(ctx, ctx.body.userid);
        const room = await rooms.require(ctx.app, param(ctx.params, 'roomid'));
        const event = await roomService.exit(ctx.app, room, ctx.body.userid);
        return ok({ kind: 'chat.exitroom', userid: ctx.body.userid, roomid: room.id, event }, 'Success');
      },
    }),
    route({
      method: 'POST',
      path: 'chat/rooms/:roomid/sessions/:userid/touch',
      limit: 'joins',
      handler: async (ctx) => {
        const userid = param(ctx.params, 'userid');
        assertActingAs(ctx, userid);
        const room = await rooms.require(ctx.app, param(ctx.params, 'roomid'));
        return ok(subscriptionView(await participation.touch(ctx.app, room, userid), room));
      },
    }),
    route({
      method: 'GET',
      path: 'chat/rooms/:roomid/participants',
      query: Paging,
      handler: async (ctx) => {
        const room = await rooms.require(ctx.app, param(ctx.params, 'roomid'));
        const { items, next } = await roomLists.participants(ctx.app, room, ctx.query.cursor, ctx.query.limit);
        return ok(listPayload('chat.list.participants', 'participants', items, next));
      },
    }),
    route({
      method: 'GET',
      path: 'chat/user/:userid/subscriptions',
      access: 'user',
      query: Paging,
      handler: async (ctx) => {
        const userid = param(ctx.params, 'userid');
        assertActingAs(ctx, userid);
        const { items, next } = await roomLists.subscriptions(ctx.app, userid, ctx.query.cursor, ctx.query.limit);
        const nextUrl = next === '' ? '' : `/api/v3/${ctx.app.id}/chat/user/${encodeURIComponent(userid)}/subscriptions?cursor=${next}&limit=${ctx.query.limit}`;
        return ok(listPayload('list.userroomsubscriptions', 'subscriptions', items, next, { next: nextUrl }));
      },
    }),
  ];
}
