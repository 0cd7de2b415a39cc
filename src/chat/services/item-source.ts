import type { Db } from '../../db/client.js';
import type { ItemViewSource } from '../../events/item-views.js';
import { findEventsById } from '../store/events.js';
import type { EventViews } from './event-views.js';

export interface ChatItemDeps {
  db: Db;
  views: Pick<EventViews, 'views'>;
}

/** Chat events by id as `GET chat/rooms/{roomid}/events/{eventid}` answers them: one read of the rows, then their views (targets and users batched). */
export function chatItemSource({ db, views }: ChatItemDeps): ItemViewSource {
  return async (app, ids) => {
    const events = (await findEventsById(db, ids)).filter((e) => e.appId === app.id);
    return new Map((await views.views(app, events)).map((v) => [v.id, v]));
  };
}
