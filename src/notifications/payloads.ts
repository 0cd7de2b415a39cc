import type { Application } from '../apps/types.js';
import type { ItemViews } from '../events/item-views.js';
import { groupBy } from '../group-by.js';
import type { Notification, NotificationWithPayload } from './types.js';

/**
 * Stored notifications with their payloads: each chat event or comment as its area answers it
 * now, read in one batch per entity whatever the number of rows; null where the item no longer
 * exists (deleted, or a chat event of a purged user).
 */
export async function withPayloads(items: Pick<ItemViews, 'views'>, app: Application, rows: Notification[]): Promise<NotificationWithPayload[]> {
  const found = new Map(await Promise.all([...groupBy(rows, (r) => r.entity)].map(async ([entity, own]) => [entity, await items.views(entity, app, [...new Set(own.map((r) => r.itemId))])] as const)));
  return rows.map((r) => ({ ...r, payload: found.get(r.entity)?.get(r.itemId) ?? null }));
}
