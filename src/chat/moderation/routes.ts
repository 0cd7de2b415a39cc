import type { Core } from '../../core.js';
import { assertActingAs, assertModerator } from '../../http/auth.js';
import { listPayload, pageOf, stringCursor } from '../../http/cursor.js';
import { ok, route, type RouteDef } from '../../http/route.js';
import type { ChatContext } from '../context.js';
import { EventModeration } from './services/event-queue.js';
import { Bounce, Decision, Paging, Purge, Queue, Report, RoomEffect } from './schemas.js';
import { UserEffects } from './services/user-effects.js';
import { UserReports } from './services/user-reports.js';

const ROOM_EFFECTS = ['mute', 'shadowban'] as const;

/** Chat moderation (api-surface.md, Chat moderation and user effects; api-v3.md, Report endpoints). */
export function moderationRoutes(core: Core, chat: ChatContext): RouteDef[] {
  const events = new EventModeration(core, chat);
  const reports = new UserReports(core, chat);
  const effects = new UserEffects(core, chat);

  return [
    route({
      method: 'POST',
      path: 'chat/rooms/:roomid/events/:eventid/report',
      limit: 'reports',
      body: Report,
      handler: async (ctx) => {
        assertActingAs(ctx, ctx.body.userid);
        const event = await events.report(ctx.app, ctx.params.roomid as string, ctx.params.eventid as string, ctx.body.userid, ctx.body.reporttype);
        return ok(event, 'Event reported.');
      },
    }),
    route({
      method: 'GET',
      path: 'chat/moderation/queues/events',
      access: 'user',
      query: Queue,
      handler: async (ctx) => {
        assertModerator(ctx);
        const { roomid, cursor, limit } = ctx.query;
        const after = stringCursor(cursor) ?? '';
        const { room, rows } = await events.queue(ctx.app, roomid === undefined || roomid === '' ? undefined : roomid, after, limit + 1);
        const { items, next } = pageOf(rows, limit, (e) => e.id);
        const extra = { room: room === null ? null : chat.rooms.view(room) };
        return ok(listPayload('list.chatevents', 'events', await chat.events.views(ctx.app, items), next, extra));
      },
    }),
    route({
      method: 'POST',
      path: 'chat/moderation/queues/events/:eventid/applydecision',
      body: Decision,
      handler: async (ctx) => {
        assertModerator(ctx);
        const event = await events.decide(ctx.app, ctx.params.eventid as string, ctx.body.approve);
        return ok(event, ctx.body.approve ? 'Event approved.' : 'Event rejected.');
      },
    }),
    route({
      method: 'POST',
      path: 'chat/rooms/:roomid/users/:userid/report',
      limit: 'reports',
      body: Report,
      handler: async (ctx) => {
        assertActingAs(ctx, ctx.body.userid);
        const room = await reports.report(ctx.app, ctx.params.roomid as string, ctx.params.userid as string, ctx.body.userid, ctx.body.reporttype);
        return ok(room, 'User reported.');
      },
    }),
    route({
      method: 'POST',
      path: 'chat/rooms/:roomid/moderation/flaggedusers/:userid/applydecision',
      body: Decision,
      handler: async (ctx) => {
        assertModerator(ctx);
        return ok(await reports.decide(ctx.app, ctx.params.roomid as string, ctx.params.userid as string, ctx.body.approve));
      },
    }),
    route({
      method: 'POST',
      path: 'chat/rooms/:roomid/bounce',
      body: Bounce,
      handler: async (ctx) => {
        assertModerator(ctx);
        const room = await chat.rooms.require(ctx.app, ctx.params.roomid as string);
        const { userid, bounce, announcement } = ctx.body;
        return ok(await effects.bounce(ctx.app, room, userid, bounce, announcement ?? '', ctx.actor?.userid ?? null));
      },
    }),
    ...ROOM_EFFECTS.map((effect) =>
      route({
        method: 'POST',
        path: `chat/rooms/:roomid/${effect}`,
        body: RoomEffect,
        handler: async (ctx) => {
          assertModerator(ctx);
          const room = await chat.rooms.require(ctx.app, ctx.params.roomid as string);
          const { userid, applyeffect, expireseconds } = ctx.body;
          return ok(await effects.apply(ctx.app, room, userid, effect, applyeffect, expireseconds, ctx.actor?.userid ?? null));
        },
      }),
    ),
    route({
      method: 'POST',
      path: 'chat/rooms/:roomid/commands/purge',
      body: Purge,
      handler: async (ctx) => {
        assertModerator(ctx);
        assertActingAs(ctx, ctx.body.byuserid);
        const room = await chat.rooms.require(ctx.app, ctx.params.roomid as string);
        const { event, purged } = await effects.purge(ctx.app, room, ctx.body.userid, ctx.body.byuserid);
        return ok(event, `The user's ${purged} messages were purged.`);
      },
    }),
    route({
      method: 'GET',
      path: 'chat/rooms/:roomid/usereffects',
      access: 'user',
      query: Paging,
      handler: async (ctx) => {
        assertModerator(ctx);
        const room = await chat.rooms.require(ctx.app, ctx.params.roomid as string);
        const after = stringCursor(ctx.query.cursor) ?? '';
        const all = await effects.list(ctx.app, room);
        const { items, next } = pageOf(
          all.filter((e) => e.key > after),
          ctx.query.limit,
          (e) => e.key,
        );
        const page = items.map((e) => e.item);
        // `effects` in the SDKs' shape ({user, effect}) beside api-v3.md's `usereffects`.
        const sdkEffects = page.map((e) => ({ user: e.user, effect: { effecttype: e.effecttype, expires: e.expires, userid: e.userid } }));
        return ok({ ...listPayload('chat.list.roomusereffects', 'usereffects', page, next), effects: sdkEffects });
      },
    }),
  ];
}
