import type { Area, Core } from '../core.js';
import { assertActingAs, assertAdmin, assertModerator } from '../http/auth.js';
import { decodeCursor, isCursorTime, isString, listPayload, pageOf, stringCursor } from '../http/cursor.js';
import { badRequest, preconditionFailed } from '../errors.js';
import { ok, route, type RequestContext } from '../http/route.js';
import { Effect, GlobalPurge, Paging, ReportUser, Search, SetRole, UpsertUser } from './schemas.js';
import * as store from './store.js';
import { USER_SHAPE, userView } from './views.js';

/** The reported-users queue pages by (time of the last report, userid), newest first. */
type QueueKey = [string, string];
const isQueueKey = (x: unknown): x is QueueKey => Array.isArray(x) && x.length === 2 && isCursorTime(x[0]) && isString(x[1]);
const EFFECTS = { ban: 'banned', shadowban: 'shadowBanned', mute: 'muted' } as const;

export function usersArea(core: Core): Area {
  const { users, db, searches } = core;
  core.shapes.register('app.user', USER_SHAPE);
  const reportedUsers = async (ctx: RequestContext, page: { cursor: string; limit: number }) => {
    assertModerator(ctx);
    const before = page.cursor === '' ? undefined : decodeCursor(page.cursor, isQueueKey);
    const rows = await store.listReportedUsers(db, ctx.app.userPool, before, page.limit + 1);
    const { items, next } = pageOf(rows, page.limit, (r): QueueKey => [r.lastkey, r.user_id]);
    const byId = await users.getMany(
      ctx.app,
      items.map((r) => r.user_id),
    );
    const reported = items.map((r) => {
      const user = byId.get(r.user_id);
      return { kind: 'app.reporteduser', userid: r.user_id, user: user === undefined ? null : userView(user), reports: r.reports, reportcount: r.reports.length };
    });
    return ok(listPayload('list.reportedusers', 'reportedusers', reported, next));
  };
  return {
    routes: [
      route({
        method: 'POST',
        path: 'user/users/:userid',
        limit: 'users',
        body: UpsertUser,
        handler: async (ctx) => {
          const userid = ctx.params.userid as string;
          assertActingAs(ctx, userid);
          const { role, ...body } = ctx.body;
          // The hosted SDK always sends a role: repeating the user's own (or `user` for a new one) changes nothing, so it is left out and needs no admin.
          const current = role === undefined ? undefined : ((await users.get(ctx.app, userid))?.role ?? 'user');
          if (role !== current) assertAdmin(ctx);
          const user = await users.ensure(ctx.app, { userid, ...body, ...(role === current ? {} : { role }) }, { onHandleTaken: 'reject' });
          return ok(userView(user));
        },
      }),
      route({
        method: 'GET',
        path: 'user/users/:userid',
        handler: async (ctx) => ok(userView(await users.require(ctx.app, ctx.params.userid as string))),
      }),
      route({
        method: 'DELETE',
        path: 'user/users/:userid',
        limit: 'users',
        handler: async (ctx) => {
          assertActingAs(ctx, ctx.params.userid as string);
          const user = await users.delete(ctx.app, ctx.params.userid as string);
          return ok({ kind: 'deleted.appuser', user: userView(user) }, 'User deleted.');
        },
      }),
      route({
        method: 'GET',
        path: 'user/users',
        access: 'user',
        query: Paging,
        handler: async (ctx) => {
          const after = stringCursor(ctx.query.cursor) ?? '';
          const rows = await store.listUsers(db, ctx.app.userPool, after, ctx.query.limit + 1);
          const { items, next } = pageOf(rows, ctx.query.limit, (u) => u.userId);
          return ok(listPayload('list.users', 'users', items.map(userView), next));
        },
      }),
      route({
        method: 'POST',
        path: 'user/search',
        writes: false,
        limit: 'searches',
        body: Search,
        handler: async (ctx) => {
          const { handle, name, userid, limit, cursor } = ctx.body;
          if (!handle && !name && !userid) throw badRequest('Search requires either a userid, handle or name parameter.', { search: 'give userid, handle or name' });
          const after = stringCursor(cursor) ?? '';
          const rows = await searches.run((q) => store.searchUsers(q, ctx.app.userPool, { handle: handle || undefined, name: name || undefined, userid: userid || undefined }, after, limit + 1));
          const { items, next } = pageOf(rows, limit, (u) => u.userId);
          return ok(listPayload('list.users', 'users', items.map(userView), next));
        },
      }),
      route({
        method: 'POST',
        path: 'user/users/:userid/role',
        limit: 'moderation',
        access: 'admin',
        body: SetRole,
        handler: async (ctx) => {
          assertAdmin(ctx);
          return ok(userView(await users.patch(ctx.app, ctx.params.userid as string, { role: ctx.body.role })));
        },
      }),
      ...Object.entries(EFFECTS).map(([segment, effect]) =>
        route({
          method: 'POST',
          path: `user/users/:userid/${segment}`,
          limit: 'moderation',
          access: 'admin',
          body: Effect,
          handler: async (ctx) => {
            assertModerator(ctx);
            const user = await users.setEffect(ctx.app, ctx.params.userid as string, effect, ctx.body.applyeffect, ctx.body.expireseconds);
            return ok(userView(user));
          },
        }),
      ),
      route({
        method: 'POST',
        path: 'user/users/:userid/globalpurge',
        limit: 'moderation',
        access: 'admin',
        body: GlobalPurge,
        handler: async (ctx) => {
          assertModerator(ctx);
          const user = await users.require(ctx.app, ctx.params.userid as string);
          await users.purge(ctx.app, user.userId, ctx.body.byuserid);
          return ok({ kind: 'app.user.globalpurge', user: userView(user) }, 'User content purged.');
        },
      }),
      route({
        method: 'POST',
        path: 'user/users/:userid/report',
        limit: 'reports',
        body: ReportUser,
        handler: async (ctx) => {
          assertActingAs(ctx, ctx.body.userid);
          if (ctx.app.userReportsLimit <= 0) throw preconditionFailed('User reporting is not enabled for this application.');
          const user = await users.require(ctx.app, ctx.params.userid as string);
          const reported = await users.report(ctx.app, user.userId, ctx.body.userid, ctx.body.reporttype);
          return ok(userView(reported ?? user), reported !== undefined ? 'User reported.' : 'User was already reported by this user.');
        },
      }),
      route({
        method: 'GET',
        path: 'user/moderation/queues/reportedusers',
        access: 'user',
        query: Paging,
        handler: async (ctx) => reportedUsers(ctx, ctx.query),
      }),
      // The JS SDK lists the queue with a POST whose body holds the paging.
      route({
        method: 'POST',
        path: 'user/moderation/queues/reportedusers',
        writes: false,
        body: Paging,
        handler: async (ctx) => reportedUsers(ctx, ctx.body),
      }),
    ],
  };
}
