import { assertActingAs, viewerOf } from '../../http/auth.js';
import { ok, param, route, type RequestContext, type RouteDef } from '../../http/route.js';
import { Command, DeleteEvent, Edit, Message, React, Reactors, SetDeleted, ViewerOnly } from '../schemas.js';
import type { Commands } from '../services/commands.js';
import type { EventViews } from '../services/event-views.js';
import type { Messages } from '../services/messages.js';
import type { Reactions } from '../services/reactions.js';
import type { RoomDirectory } from '../services/room-directory.js';
import { jsonOnce } from '../../json-once.js';
import { commandJson } from '../views.js';

export interface EventRoutesDeps {
  rooms: RoomDirectory;
  commands: Commands;
  messages: Messages;
  reactions: Reactions;
  views: EventViews;
}

const isStaff = (ctx: RequestContext) => ctx.actor !== null && ctx.actor.role !== 'user';

/** Posting and changing events: command, reply, quote, react, edit, delete; reading one. */
export function eventRoutes({ rooms, commands, messages, reactions, views }: EventRoutesDeps): RouteDef[] {
  return [
    route({
      method: 'POST',
      path: 'chat/rooms/:roomid/command',
      limit: 'chat',
      body: Command,
      handler: async (ctx) => {
        const { command, userid, ...input } = ctx.body;
        assertActingAs(ctx, userid);
        const { room, json } = await rooms.cached(ctx.app, param(ctx.params, 'roomid'));
        return { data: null, json: commandJson(await commands.execute(ctx.app, room, userid, command, input, ctx.actor), json) };
      },
    }),
    route({
      method: 'POST',
      path: 'chat/rooms/:roomid/events/:eventid/reply',
      limit: 'chat',
      body: Message,
      handler: async (ctx) => {
        const { userid, ...input } = ctx.body;
        assertActingAs(ctx, userid);
        const room = await rooms.require(ctx.app, param(ctx.params, 'roomid'));
        return ok(await messages.reply(ctx.app, room, param(ctx.params, 'eventid'), userid, input));
      },
    }),
    route({
      method: 'POST',
      path: 'chat/rooms/:roomid/events/:eventid/quote',
      limit: 'chat',
      body: Message,
      handler: async (ctx) => {
        const { userid, ...input } = ctx.body;
        assertActingAs(ctx, userid);
        const room = await rooms.require(ctx.app, param(ctx.params, 'roomid'));
        return ok(await messages.quote(ctx.app, room, param(ctx.params, 'eventid'), userid, input));
      },
    }),
    route({
      method: 'POST',
      path: 'chat/rooms/:roomid/events/:eventid/react',
      limit: 'chat',
      body: React,
      handler: async (ctx) => {
        assertActingAs(ctx, ctx.body.userid);
        const room = await rooms.require(ctx.app, param(ctx.params, 'roomid'));
        const view = await reactions.react(ctx.app, room, param(ctx.params, 'eventid'), ctx.body.userid, ctx.body.reaction, ctx.body.reacted);
        // The JSON the notification of the target's author and the live frame make of the same view.
        return { data: null, json: jsonOnce(view) };
      },
    }),
    route({
      method: 'PUT',
      path: 'chat/rooms/:roomid/events/:eventid',
      limit: 'chat',
      body: Edit,
      handler: async (ctx) => {
        assertActingAs(ctx, ctx.body.userid);
        const room = await rooms.require(ctx.app, param(ctx.params, 'roomid'));
        return ok(await messages.edit(ctx.app, room, param(ctx.params, 'eventid'), ctx.body.userid, ctx.body.body), 'Event edited.');
      },
    }),
    route({
      method: 'PUT',
      path: 'chat/rooms/:roomid/events/:eventid/setdeleted',
      limit: 'chat',
      query: SetDeleted,
      handler: async (ctx) => {
        const q = ctx.query;
        assertActingAs(ctx, q.userid);
        const room = await rooms.require(ctx.app, param(ctx.params, 'roomid'));
        return ok(await messages.setDeleted(ctx.app, room, param(ctx.params, 'eventid'), q.userid, q.deleted, q.permanentifnoreplies, isStaff(ctx)), 'The deleted flag was updated.');
      },
    }),
    route({
      method: 'DELETE',
      path: 'chat/rooms/:roomid/events/:eventid',
      limit: 'chat',
      query: DeleteEvent,
      handler: async (ctx) => {
        // A plain user's token deletes as that user; an API token alone acts for the trusted backend.
        const userid = ctx.query.userid || (ctx.actor?.role === 'user' ? ctx.actor.userid : undefined);
        if (userid !== undefined) assertActingAs(ctx, userid);
        const room = await rooms.require(ctx.app, param(ctx.params, 'roomid'));
        return ok(await messages.deletePermanently(ctx.app, room, param(ctx.params, 'eventid'), userid, isStaff(ctx)), 'Event deleted.');
      },
    }),
    route({
      method: 'GET',
      path: 'chat/rooms/:roomid/events/:eventid',
      query: ViewerOnly,
      handler: async (ctx) => {
        const room = await rooms.require(ctx.app, param(ctx.params, 'roomid'));
        const event = await messages.require(ctx.app, room.id, param(ctx.params, 'eventid'));
        return ok((await views.views(ctx.app, [event], viewerOf(ctx, ctx.query.userid)))[0]);
      },
    }),
    route({
      method: 'GET',
      path: 'chat/rooms/:roomid/events/:eventid/reactions',
      query: Reactors,
      handler: async (ctx) => {
        const room = await rooms.require(ctx.app, param(ctx.params, 'roomid'));
        return ok(await reactions.reactors(ctx.app, room, param(ctx.params, 'eventid'), ctx.query.reaction, ctx.query.cursor, ctx.query.limit));
      },
    }),
  ];
}
