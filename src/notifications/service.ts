import type { Application } from '../apps/types.js';
import type { Db } from '../db/client.js';
import type { ItemViews } from '../events/item-views.js';
import { pageOf, type Page } from '../http/cursor.js';
import { withPayloads } from './payloads.js';
import * as store from './store.js';
import type { Notification, NotificationWithPayload } from './types.js';

export interface NotificationsDeps {
  db: Db;
  items: Pick<ItemViews, 'views'>;
}

/** Notifications a write changed: how many, and the newest as answered. */
export interface Changed {
  count: number;
  newest: NotificationWithPayload | undefined;
}

/** A user's stored notifications, answered with the items they are about as they are now. */
export class Notifications {
  constructor(private readonly deps: NotificationsDeps) {}

  /** A page, newest first, before the id the previous page ended on. */
  async list(app: Application, userId: string, filter: store.NotificationFilter, before: string | undefined, limit: number): Promise<Page<NotificationWithPayload>> {
    const { items, next } = pageOf(await store.listNotifications(this.deps.db, app.id, userId, filter, before, limit + 1), limit, (n) => n.id);
    return { items: await withPayloads(this.deps.items, app, items), next };
  }

  /** The target's notifications marked read or unread: how many, and the newest with its payload (the one the answer shows). */
  async setRead(app: Application, userId: string, target: store.Target, read: boolean): Promise<Changed> {
    return this.changed(app, await store.setRead(this.deps.db, app.id, userId, target, read));
  }

  /** The target's notifications deleted: how many, and the newest with its payload. */
  async remove(app: Application, userId: string, target: store.Target): Promise<Changed> {
    return this.changed(app, await store.remove(this.deps.db, app.id, userId, target));
  }

  /** Only the newest gets its item read: the answers show no other. */
  private async changed(app: Application, rows: Notification[]): Promise<Changed> {
    const [newest] = await withPayloads(this.deps.items, app, rows.slice(0, 1));
    return { count: rows.length, newest };
  }

  /** Every notification of the user marked read, or deleted: how many changed. */
  async markAll(app: Application, userId: string, deleteThem: boolean): Promise<number> {
    const changed = deleteThem ? await store.remove(this.deps.db, app.id, userId, 'all') : await store.setRead(this.deps.db, app.id, userId, 'all', true);
    return changed.length;
  }
}
