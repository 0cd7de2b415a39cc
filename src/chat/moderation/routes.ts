import { assertActingAs, assertModerator } from '../../http/auth.js';
import { ok, route, type RouteDef } from '../../http/route.js';
import { Bounce, Decision, Paging, Purge, Queue, Report, RoomEffect } from './schemas.js';
import type { EventModeration } from './services/event-queue.js';
import type { UserEffects } from './services/user-effects.js';
import type { UserReports } from './services/user-reports.js';

const ROOM_EFFECTS = ['mute', 'shadowban'] as const;

export interface ModerationServices {
  events: EventModeration;
  reports: UserReports;
  effects: UserEffects;
}

/** Chat moderation (api-surface.md, Chat moderation and user effects; api-v3.md, Report endpoints). */
export function moderationRoutes({ events, reports, effects }: ModerationServices): RouteDef[] {
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
        return ok(await events.queue(ctx.app, ctx.query.roomid, ctx.query.cursor, ctx.query.limit));
      },
    }),
    route({
      method: 'POST',
      path: 'chat/moderation/queues/events/:eventid/applydecision',
      limit: 'moderation',
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
      limit: 'moderation',
      body: Decision,
      handler: async (ctx) => {
        assertModerator(ctx);
        return ok(await reports.decide(ctx.app, ctx.params.roomid as string, ctx.params.userid as string, ctx.body.approve));
      },
    }),
    route({
      method: 'POST',
      path: 'chat/rooms/:roomid/bounce',
      limit: 'moderation',
      body: Bounce,
      handler: async (ctx) => {
        assertModerator(ctx);
        const { userid, bounce, announcement } = ctx.body;
        return ok(await effects.bounce(ctx.app, ctx.params.roomid as string, userid, bounce, announcement ?? '', ctx.actor?.userid ?? null));
      },
    }),
    ...ROOM_EFFECTS.map((effect) =>
      route({
        method: 'POST',
        path: `chat/rooms/:roomid/${effect}`,
        limit: 'moderation',
        body: RoomEffect,
        handler: async (ctx) => {
          assertModerator(ctx);
          const { userid, applyeffect, expireseconds } = ctx.body;
          return ok(await effects.apply(ctx.app, ctx.params.roomid as string, userid, effect, applyeffect, expireseconds, ctx.actor?.userid ?? null));
        },
      }),
    ),
    route({
      method: 'POST',
      path: 'chat/rooms/:roomid/commands/purge',
      limit: 'moderation',
      body: Purge,
      handler: async (ctx) => {
        assertModerator(ctx);
        assertActingAs(ctx, ctx.body.byuserid);
        const { event, purged } = await effects.purge(ctx.app, ctx.params.roomid as string, ctx.body.userid, ctx.body.byuserid);
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
        return ok(await effects.list(ctx.app, ctx.params.roomid as string, ctx.query.cursor, ctx.query.limit));
      },
    }),
  ];
}
