import type { Limits } from '../../limits/limits.js';
import { assertModerator, assertOwnerOrModerator, ownerFor } from '../../http/auth.js';
import { ok, param, route, type RouteDef } from '../../http/route.js';
import { BatchDetails, CreateRoom, ListRooms, Permission, Reset, UpdateRoom } from '../schemas.js';
import type { RoomDirectory } from '../services/room-directory.js';
import type { RoomReads } from '../services/room-reads.js';
import type { RoomService } from '../services/room-service.js';
import { roomView } from '../views.js';

export interface RoomRoutesDeps {
  rooms: RoomDirectory;
  roomService: RoomService;
  /** The reads a crowd makes with the same parameters, shared. */
  roomReads: RoomReads;
  limits: Limits;
}

/** Rooms: create, list, read, update (open/close), delete, batch details, reset, private-room permissions. */
export function roomRoutes({ rooms, roomService, roomReads, limits }: RoomRoutesDeps): RouteDef[] {
  return [
    route({
      method: 'POST',
      path: 'chat/rooms',
      limit: 'rooms',
      body: CreateRoom,
      handler: async (ctx) => {
        const ownerid = ownerFor(ctx, ctx.body.ownerid, 'ownerid', true);
        return ok(roomView(await roomService.create(ctx.app, { ...ctx.body, ownerid })), 'Room created.');
      },
    }),
    route({
      method: 'GET',
      path: 'chat/rooms',
      query: ListRooms,
      handler: async (ctx) => {
        const began = performance.now();
        const q = ctx.query;
        // A filtered list is a search (docs/limits.md, Searches); the plain lobby page is not.
        if (q.filterbyname !== '' || q.filterbyid !== '' || q.filterbycustomid !== '') await limits.write('searches', ctx);
        return { data: null, shared: await roomReads.list(ctx.app, { name: q.filterbyname, id: q.filterbyid, customId: q.filterbycustomid }, q.cursor, q.limit, began) };
      },
    }),
    route({
      method: 'GET',
      path: 'chat/rooms/batch/details',
      query: BatchDetails,
      handler: async (ctx) => {
        const began = performance.now();
        const { roomid, customid, entity } = ctx.query;
        return { data: null, shared: await roomReads.batchDetails(ctx.app, roomid, customid, entity, began) };
      },
    }),
    route({
      method: 'GET',
      path: 'chat/rooms/:roomid',
      // With who is bounced, shadow banned, ... in it: the SDKs read bouncedusers and shadowbannedusers here.
      handler: async (ctx) => ({ data: null, shared: await roomReads.byId(ctx.app, param(ctx.params, 'roomid'), performance.now()) }),
    }),
    route({
      method: 'GET',
      path: 'chat/roomsbycustomid/:customid',
      handler: async (ctx) => ({ data: null, shared: await roomReads.byCustomId(ctx.app, param(ctx.params, 'customid'), performance.now()) }),
    }),
    route({
      method: 'POST',
      path: 'chat/rooms/:roomid',
      limit: 'rooms',
      body: UpdateRoom,
      handler: async (ctx) => {
        const room = await rooms.fresh(ctx.app, param(ctx.params, 'roomid'));
        assertOwnerOrModerator(ctx, room.ownerId, 'room');
        const ownerid = ownerFor(ctx, ctx.body.ownerid, 'ownerid', false);
        return ok(roomView(await roomService.update(ctx.app, room, { ...ctx.body, ownerid })), 'Room updated.');
      },
    }),
    route({
      method: 'DELETE',
      path: 'chat/rooms/:roomid',
      limit: 'moderation',
      access: 'admin',
      handler: async (ctx) => {
        assertModerator(ctx);
        const { room, deletedEvents } = await roomService.delete(ctx.app, await rooms.fresh(ctx.app, param(ctx.params, 'roomid')));
        return ok({ kind: 'deleted.room', room: roomView(room), deletedeventscount: deletedEvents }, 'Room deleted.');
      },
    }),
    route({
      method: 'POST',
      path: 'chat/rooms/:roomid/reset',
      limit: 'moderation',
      access: 'admin',
      body: Reset,
      handler: async (ctx) => {
        assertModerator(ctx);
        const room = await rooms.require(ctx.app, param(ctx.params, 'roomid'));
        const { deletedEvents, removedEffects } = await roomService.reset(ctx.app, room, ctx.body.removeusereffects);
        return ok(
          {
            kind: 'delete.conversation',
            conversationid: room.id,
            userid: null,
            deletedconversations: 0,
            deletedcomments: deletedEvents,
            deletedevents: deletedEvents,
            removedusereffects: removedEffects,
          },
          'Room reset.',
        );
      },
    }),
    route({
      method: 'DELETE',
      path: 'chat/rooms/:roomid/events',
      limit: 'moderation',
      access: 'admin',
      handler: async (ctx) => {
        assertModerator(ctx);
        const room = await rooms.require(ctx.app, param(ctx.params, 'roomid'));
        const { deletedEvents } = await roomService.reset(ctx.app, room, false);
        return ok({ kind: 'deleted.events', roomid: room.id, deletedeventscount: deletedEvents }, 'All events deleted.');
      },
    }),
    route({
      method: 'POST',
      path: 'chat/rooms/:roomid/permissions/:userid',
      limit: 'moderation',
      body: Permission,
      handler: async (ctx) => {
        assertModerator(ctx);
        const room = await rooms.require(ctx.app, param(ctx.params, 'roomid'));
        const userid = param(ctx.params, 'userid');
        await roomService.setPermission(ctx.app, room, userid, ctx.body.allow);
        return ok({ kind: 'chat.room.permission', roomid: room.id, userid, allow: ctx.body.allow }, 'Permission set.');
      },
    }),
  ];
}
