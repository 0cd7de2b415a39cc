import type { Chat } from '../chat.js';
import type { Core } from '../../core.js';
import { assertModerator, assertOwnerOrModerator, ownerFor } from '../../http/auth.js';
import { listPayload, pageOf, stringCursor } from '../../http/cursor.js';
import { badRequest } from '../../errors.js';
import { ok, param, route, type RouteDef } from '../../http/route.js';
import { moderatedRoomView } from '../moderation/room-view.js';
import { findRooms, listRooms } from '../store/rooms.js';
import { roomView } from '../views.js';
import { BatchDetails, CreateRoom, ListRooms, Permission, Reset, UpdateRoom } from '../schemas.js';

/** Rooms: create, list, read, update (open/close), delete, batch details, reset, private-room permissions. */
export function roomRoutes(core: Core, chat: Chat): RouteDef[] {
  const { rooms, roomService } = chat;
  return [
    route({
      method: 'POST',
      path: 'chat/rooms',
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
        const q = ctx.query;
        const after = stringCursor(q.cursor) ?? '';
        const found = await listRooms(core.db, ctx.app.id, { name: q.filterbyname, id: q.filterbyid, customId: q.filterbycustomid }, after, q.limit + 1);
        const { items, next } = pageOf(found, q.limit, (r) => r.id);
        return ok(
          listPayload(
            'list.chatrooms',
            'rooms',
            items.map((r) => roomView(r)),
            next,
          ),
        );
      },
    }),
    route({
      method: 'GET',
      path: 'chat/rooms/batch/details',
      query: BatchDetails,
      handler: async (ctx) => {
        const { roomid, customid, entity } = ctx.query;
        if (roomid.length === 0 && customid.length === 0) throw badRequest('You must specify at least one roomid or customid', { roomid: 'give a roomid or customid' });
        const found = await findRooms(core.db, ctx.app.id, roomid, customid);
        // Each figure under api-v3.md's name and the SDKs' (inroom, mostrecentmessagetime).
        const details = found.map((r) => {
          const lastMessageTime = r.lastMessageAt?.toISOString() ?? null;
          return {
            roomid: r.id,
            customid: r.customId,
            ...(entity.includes('room') ? { room: roomView(r) } : {}),
            ...(entity.includes('numparticipants') ? { numparticipants: r.inRoom, inroom: r.inRoom } : {}),
            ...(entity.includes('lastmessagetime') ? { lastmessagetime: lastMessageTime, mostrecentmessagetime: lastMessageTime } : {}),
          };
        });
        return ok({ kind: 'chat.room.list.extendeddetails', itemcount: details.length, details });
      },
    }),
    route({
      method: 'GET',
      path: 'chat/rooms/:roomid',
      // With who is bounced, shadow banned, ... in it: the SDKs read bouncedusers and shadowbannedusers here.
      handler: async (ctx) => ok(await moderatedRoomView(chat.context, core.db, ctx.app, await rooms.fresh(ctx.app, param(ctx.params, 'roomid')))),
    }),
    route({
      method: 'GET',
      path: 'chat/roomsbycustomid/:customid',
      handler: async (ctx) => ok(roomView(await rooms.byCustomId(ctx.app, param(ctx.params, 'customid')))),
    }),
    route({
      method: 'POST',
      path: 'chat/rooms/:roomid',
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
