import type { Application } from '../../apps/types.js';
import type { Core } from '../../core.js';
import { assertActingAs, roleIfTrusted } from '../../http/auth.js';
import { listPayload, pageOf, stringCursor } from '../../http/cursor.js';
import { ok, param, route, type RequestContext, type RouteDef } from '../../http/route.js';
import { userView } from '../../users/views.js';
import type { Chat } from '../chat.js';
import type { Room } from '../context.js';
import { beforeCursor } from '../feed/cursor.js';
import { Join, Paging, UserOnly } from '../schemas.js';
import { listParticipants, listSubscriptions, type Subscription } from '../store/participants.js';
import { roomView } from '../views.js';
import type * as v from 'valibot';

export function subscriptionView(sub: Subscription, room: Room) {
  return {
    kind: 'chat.subscription',
    id: sub.id,
    roomid: room.id,
    roomcustomid: room.customId,
    userid: sub.userId,
    roomname: room.name,
    roomcustomtags: room.customTags,
    persist: sub.persist,
    added: sub.added.toISOString(),
    updated: sub.updated.toISOString(),
  };
}

/** Join, exit, touch, participants and a user's subscriptions. */
export function participationRoutes(core: Core, chat: Chat): RouteDef[] {
  const { rooms, roomService, feeds, participation } = chat;

  const join = async (ctx: RequestContext<v.InferOutput<typeof Join>>, app: Application, found: Room) => {
    const { limit, userid, role, ...fields } = ctx.body;
    assertActingAs(ctx, userid);
    const { user, subscription } = await roomService.join(app, found, { userid, ...fields, role: roleIfTrusted(ctx, role) });
    const room = await rooms.fresh(app, found.id);
    const latest = await feeds.latest(app, room, limit, user.userId);
    return ok({
      kind: 'chat.joinroom',
      user: userView(user),
      room: roomView(room),
      eventscursor: { kind: 'list.chatevents', room: null, cursor: latest.cursor, more: latest.more, itemcount: latest.events.length, events: latest.events },
      previouseventscursor: latest.more ? beforeCursor(latest.oldestSeq) : '',
      subscription: subscriptionView(subscription, room),
    });
  };

  return [
    route({
      method: 'POST',
      path: 'chat/rooms/:roomid/join',
      body: Join,
      handler: async (ctx) => join(ctx, ctx.app, await rooms.fresh(ctx.app, param(ctx.params, 'roomid'))),
    }),
    route({
      method: 'POST',
      path: 'chat/roomsbycustomid/:customid/join',
      body: Join,
      handler: async (ctx) => join(ctx, ctx.app, await rooms.byCustomId(ctx.app, param(ctx.params, 'customid'))),
    }),
    route({
      method: 'POST',
      path: 'chat/rooms/:roomid/exit',
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
        const after = stringCursor(ctx.query.cursor) ?? '';
        const found = await listParticipants(core.db, room.id, after, ctx.query.limit + 1);
        const { items, next } = pageOf(found, ctx.query.limit, (p) => p.userId);
        const users = await core.users.getMany(
          ctx.app,
          items.map((p) => p.userId),
        );
        const participants = items.map((p) => {
          const user = users.get(p.userId);
          return { kind: 'chat.participant', user: user === undefined ? null : userView(user), added: p.added.toISOString(), lastseen: p.lastSeen.toISOString() };
        });
        return ok(listPayload('chat.list.participants', 'participants', participants, next));
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
        await core.users.require(ctx.app, userid);
        const after = stringCursor(ctx.query.cursor) ?? '';
        const found = await listSubscriptions(core.db, ctx.app.id, userid, after, ctx.query.limit + 1);
        const { items, next } = pageOf(found, ctx.query.limit, (s) => s.room.id);
        const nextUrl = next === '' ? '' : `/api/v3/${ctx.app.id}/chat/user/${encodeURIComponent(userid)}/subscriptions?cursor=${next}&limit=${ctx.query.limit}`;
        return ok(
          listPayload(
            'list.userroomsubscriptions',
            'subscriptions',
            items.map((s) => subscriptionView(s.sub, s.room)),
            next,
            { next: nextUrl },
          ),
        );
      },
    }),
  ];
}
