import { and, desc, eq, inArray, lt, or, sql, type SQL } from 'drizzle-orm';
import type { Queryable } from '../db/client.js';
import { notifications } from '../db/schema/index.js';
import type { NotificationKind } from './filter.js';
import type { Notification } from './types.js';

export interface NotificationFilter {
  /** undefined: every kind; empty: none. */
  kinds: NotificationKind[] | undefined;
  includeRead: boolean;
}

function kindsCondition(kinds: NotificationKind[] | undefined): SQL | undefined {
  if (kinds === undefined) return undefined;
  return or(...kinds.map((k) => and(eq(notifications.type, k.type), k.entity === null ? undefined : eq(notifications.entity, k.entity))));
}

/** Newest first, before the id the previous page ended on. */
export async function listNotifications(q: Queryable, appId: string, userId: string, filter: NotificationFilter, before: string | undefined, limit: number): Promise<Notification[]> {
  if (filter.kinds?.length === 0) return [];
  return q
    .select()
    .from(notifications)
    .where(
      and(
        eq(notifications.appId, appId),
        eq(notifications.userId, userId),
        kindsCondition(filter.kinds),
        filter.includeRead ? undefined : eq(notifications.read, false),
        before === undefined ? undefined : lt(notifications.id, before),
      ),
    )
    .orderBy(desc(notifications.id))
    .limit(limit);
}

/** Which of a user's notifications an operation applies to: one by id, those of a chat event, or all. */
export type Target = { id: string } | { chatEventId: string } | 'all';

function where(appId: string, userId: string, target: Target) {
  const own = and(eq(notifications.appId, appId), eq(notifications.userId, userId));
  if (target === 'all') return own;
  if ('id' in target) return and(own, eq(notifications.id, target.id));
  return and(own, eq(notifications.entity, 'chat'), eq(notifications.itemId, target.chatEventId));
}

/**
 * The target's rows, locked in id order before they change. Two bulk changes of one user's
 * notifications (markread at once from two tabs) would otherwise lock the same rows in whatever
 * order each one's scan meets them, and Postgres ends such a deadlock by failing one of them.
 */
function lockedInOrder(q: Queryable, appId: string, userId: string, target: Target): SQL | undefined {
  // The user is named outside too: the primary key (app, user, id) finds the rows, not a scan.
  return and(
    where(appId, userId, 'all'),
    inArray(
      notifications.id,
      q
        .select({ id: notifications.id })
        .from(notifications)
        .where(where(appId, userId, target))
        .orderBy(notifications.id)
        .for('update'),
    ),
  );
}

export async function setRead(q: Queryable, appId: string, userId: string, target: Target, read: boolean): Promise<Notification[]> {
  const whenRead = read ? sql`coalesce(${notifications.whenRead}, now())` : null;
  const changed = await q
    .update(notifications)
    .set({ read, whenRead })
    .where(lockedInOrder(q, appId, userId, target))
    .returning();
  return newestFirst(changed);
}

export async function remove(q: Queryable, appId: string, userId: string, target: Target): Promise<Notification[]> {
  return newestFirst(
    await q
      .delete(notifications)
      .where(lockedInOrder(q, appId, userId, target))
      .returning(),
  );
}

const newestFirst = (list: Notification[]) => list.sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
