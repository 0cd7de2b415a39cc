import type { Application } from '../apps/types.js';

/** The areas whose published items (chat events, comments) notifications are about. */
export type ItemEntity = 'chat' | 'comment';

/**
 * The items of an app named by id, each as its area's REST API answers it now (a chat event as
 * `GET chat/rooms/{roomid}/events/{eventid}`, a comment as `GET …/comments/{commentid}`), in a
 * fixed number of statements however many ids. An id whose item is gone is absent.
 */
export type ItemViewSource = (app: Application, ids: string[]) => Promise<Map<string, unknown>>;

/** Each entity's source, registered by the area that publishes it; notifications read their payloads here. */
export class ItemViews {
  private readonly sources = new Map<ItemEntity, ItemViewSource>();

  add(entity: ItemEntity, source: ItemViewSource): void {
    this.sources.set(entity, source);
  }

  /** An entity no area registered has no items to show. */
  views(entity: string, app: Application, ids: string[]): Promise<Map<string, unknown>> {
    const source = this.sources.get(entity as ItemEntity);
    if (source === undefined || ids.length === 0) return Promise.resolve(new Map());
    return source(app, ids);
  }
}
