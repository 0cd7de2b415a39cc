import type { Area, Core } from '../core.js';
import { assertActingAs } from '../http/auth.js';
import { listPayload, stringCursor } from '../http/cursor.js';
import { notFound } from '../errors.js';
import { ok, param, route, type RequestContext } from '../http/route.js';
import { ListNotifications, MarkAllRead, SetRead } from './schemas.js';
import { Notifications } from './service.js';
import type { Target } from './store.js';
import { userTopic } from './topic.js';
import { NOTIFICATION_SHAPE, notificationView } from './views.js';
import { NotificationWriter } from './writer.js';

const BASE = 'user/users/:userid/notification';

/** The user the path names, once the caller may act as them. */
function owner(ctx: RequestContext): string {
  const userid = param(ctx.params, 'userid');
  assertActingAs(ctx, userid);
  return userid;
}

const byChatEvent = (p: Record<string, string>) => ({ chatEventId: p['chateventid'] as string });

/** The two ways to name notifications in a path: by id, or by the chat event they are about. */
const TARGETS = [
  { path: `${BASE}/notifications/:notificationid`, target: (p: Record<string, string>) => ({ id: p['notificationid'] as string }) },
  { path: `${BASE}/notificationsbyid/chateventid/:chateventid`, target: byChatEvent },
];

/** The path the JS SDK (3.17) deletes by chat event on: `notifications/` where the others say `notification/`. */
const SDK_DELETE_BY_CHAT_EVENT = 'user/users/:userid/notifications/notificationsbyid/chateventid/:chateventid';

export function notificationsArea(core: Core): Area {
  const { db } = core;
  const notifications = new Notifications({ db, items: core.hooks.items });
  const deleteRoute = (path: string, target: (p: Record<string, string>) => Target) =>
    route({
      method: 'DELETE',
      path,
      limit: 'notifications',
      handler: async (ctx) => {
        const { count, newest } = await notifications.remove(ctx.app, owner(ctx), target(ctx.params));
        if (newest === undefined) throw notFound('Notification not found.');
        return ok({ kind: 'deleted.usernotification', deletedcount: count, notification: notificationView(newest) }, 'Deleted.');
      },
    });
  const writer = new NotificationWriter(db, core.apps, core.bus, core.log.child({ area: 'notifications' }));
  core.hooks.add(writer);
  core.topics.register('user', userTopic);
  core.shapes.register('user.notification', NOTIFICATION_SHAPE);

  return {
    close: () => writer.drain(),
    routes: [
      route({
        method: 'GET',
        path: `${BASE}/listnotifications`,
        access: 'user',
        query: ListNotifications,
        handler: async (ctx) => {
          const userid = owner(ctx);
          const before = stringCursor(ctx.query.cursor);
          const filter = { kinds: ctx.query.filternotificationtypes, includeRead: ctx.query.includeread };
          const { items, next } = await notifications.list(ctx.app, userid, filter, before, ctx.query.limit);
          return ok(listPayload('list.usernotifications', 'notifications', items.map(notificationView), next));
        },
      }),
      ...TARGETS.flatMap(({ path, target }) => [
        route({
          method: 'PUT',
          path: `${path}/update`,
          limit: 'notifications',
          query: SetRead,
          handler: async (ctx) => {
            const { newest } = await notifications.setRead(ctx.app, owner(ctx), target(ctx.params), ctx.query.read);
            if (newest === undefined) throw notFound('Notification not found.');
            return ok(notificationView(newest), ctx.query.read ? 'Marked read.' : 'Marked unread.');
          },
        }),
        deleteRoute(path, target),
      ]),
      deleteRoute(SDK_DELETE_BY_CHAT_EVENT, byChatEvent),
      route({
        method: 'PUT',
        path: `${BASE}/notifications_all/markread`,
        limit: 'notifications',
        query: MarkAllRead,
        handler: async (ctx) => {
          const userid = owner(ctx);
          const count = await notifications.markAll(ctx.app, userid, ctx.query.delete);
          if (ctx.query.delete) return ok({ kind: 'user.notifications.markread', userid, updatedcount: 0, deletedcount: count }, 'Notifications deleted.');
          return ok({ kind: 'user.notifications.markread', userid, updatedcount: count, deletedcount: 0 }, 'Notifications marked read.');
        },
      }),
    ],
  };
}
