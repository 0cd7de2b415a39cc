import type { Application } from '../apps/types.js';
import type { Db } from '../db/client.js';
import type { ItemViews } from '../events/item-views.js';
import { pageOf, type Page } from '../http/cursor.js';
import { withPayloads } from './payloads.js';
import * as store from './store.js';
import type { NotificationWithPayload } from './types.js';

export interface NotificationsDeps {
  db: Db;
  items: Pick<ItemViews, 'views'>;
}

/** A user's stored notifications, answered with the items they are about as they are now. */
export class Notifications {
  constructor(private readonly deps: NotificationsDeps) {}

  /** A page, newest first, before the id the previous page ended on. */
  async list(app: Application, userId: string, filter: store.NotificationFilter, before: string | undefined, limit: number): Promise<Page<NotificationWithPayload>> {
    const { items, next } = pageOf(await store.listNotifications(this.deps.db, app.id, userId, filter, before, limit + 1), limit, (n) => n.id);
    return { items: await withPayloads(this.deps.items, app, items), next };
  }

  /** The target's notifications marked read or unread, newest first. */
  async setRead(app: Application, userId: string, target: store.Target, read: boolean): Promise<NotificationWithPayload[]> {
    return withPayloads(this.deps.items, app, await store.setRead(this.deps.db, app.id, userId, target, read));
  }

  /** The target's notifications deleted, newest first. */
  async remove(app: Application, userId: string, target: store.Target): Promise<NotificationWithPayload[]> {
    return withPayloads(this.deps.items, app, await store.remove(this.deps.db, app.id, userId, target));
  }

  /** Every notification of the user marked read, or deleted: how many changed. */
  async markAll(app: Application, userId: string, deleteThem: boolean): Promise<number> {
    const changed = deleteThem ? await store.remove(this.deps.db, app.id, userId, 'all') : await store.setRead(this.deps.db, app.id, userId, 'all', true);
    return changed.length;
  }
}
