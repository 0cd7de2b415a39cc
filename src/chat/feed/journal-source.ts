import type { Db } from '../../db/client.js';
import type { JournalSource } from '../../events/journal-sources.js';
import type { PublishedEvent } from '../../events/publish-hooks.js';
import type { EventViews } from '../services/event-views.js';
import type { RoomDirectory } from '../services/room-directory.js';
import { findEventsById } from '../store/events.js';
import type { EventView } from '../views.js';
import { hookEvent } from './publisher.js';

export interface ChatJournalDeps {
  db: Db;
  rooms: Pick<RoomDirectory, 'get'>;
  views: Pick<EventViews, 'views'>;
}

/** Chat events in the feed rebuilt from their journal keys, their ids (see JournalSources). */
export function chatJournalSource({ db, rooms, views }: ChatJournalDeps): JournalSource {
  return async (app, ids) => {
    const events = (await findEventsById(db, ids)).filter((e) => e.appId === app.id && e.seq !== null && !e.shadowban);
    const built = await views.views(app, events);
    const published: PublishedEvent[] = [];
    for (const [i, event] of events.entries()) {
      const room = await rooms.get(app, event.roomId);
      const hooked = room === undefined ? undefined : hookEvent(room, built[i] as EventView, []);
      if (hooked !== undefined) published.push(hooked);
    }
    return published;
  };
}
