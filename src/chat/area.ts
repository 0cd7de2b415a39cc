import type { Area, Core } from '../core.js';
import { logFailedTurn } from '../db/errors.js';
import { RoomFeeds } from './feed/feed.js';
import { chatJournalSource } from './feed/journal-source.js';
import { createFeedWriter } from './feed/publisher.js';
import { ROOM_KIND } from './feed/topics.js';
import { moderationArea } from './moderation/area.js';
import { eventRoutes } from './routes/events.js';
import { listRoutes } from './routes/lists.js';
import { participationRoutes } from './routes/participation.js';
import { roomRoutes } from './routes/rooms.js';
import { chatContext } from './services/chat-context.js';
import { Commands } from './services/commands.js';
import { EventLists } from './services/event-lists.js';
import { EventViews } from './services/event-views.js';
import { chatItemSource } from './services/item-source.js';
import { Messages } from './services/messages.js';
import { Participation } from './services/participation.js';
import { Posting } from './services/posting.js';
import { Reactions } from './services/reactions.js';
import { RoomDirectory } from './services/room-directory.js';
import { RoomEffects } from './services/room-effects.js';
import { RoomLists } from './services/room-lists.js';
import { RoomReads } from './services/room-reads.js';
import { RoomService } from './services/room-service.js';
import { ChatSweep } from './services/sweep.js';
import { EVENT_SHAPE } from './views.js';

/** Every part of the chat core, built once per server, each from exactly what it uses. */
function buildChat(core: Core) {
  const { config, log, db, bus, apps, users, hooks, searches, limits } = core;
  const rooms = new RoomDirectory({ db, bus, log, cacheEntries: config.roomCacheEntries });
  const effects = new RoomEffects({ db, bus, cacheEntries: config.roomCacheEntries });
  const views = new EventViews({ db, users });
  const feeds = new RoomFeeds({ db, log, bus, rooms, views, users, commits: core.database.commits, catchUpBytes: config.catchUpCacheBytes, latestBytes: config.crowdReadsCacheBytes });
  const participation = new Participation({ db, log, bus, apps, rooms });
  hooks.journal.add('chat', chatJournalSource({ db, rooms, views }));
  hooks.items.add('chat', chatItemSource({ db, views }));
  const reactionLimits = { shown: config.reactionUsersShown, typesMax: config.reactionTypesMax };
  const posting = new Posting({ users, hooks, log, effects, participation, writer: createFeedWriter({ db, log, bus, hooks, views, reactionLimits }) });
  const messages = new Messages({ db, users, rooms, posting, views });
  const context = chatContext({ rooms, views, messages, posting, effects, participation });
  return {
    rooms,
    views,
    feeds,
    participation,
    messages,
    context,
    reactions: new Reactions({ db, users, posting, messages }),
    commands: new Commands({ users, posting, messages }),
    roomService: new RoomService({ db, bus, users, rooms, effects, participation, posting, feeds }),
    roomLists: new RoomLists({ db, users, searches }),
    eventLists: new EventLists({ db, rooms, views, searches }),
    limits,
    sweep: new ChatSweep({ db, apps, rooms, participation, posting, sessionIdleSeconds: config.sessionIdleSeconds }),
  };
}

/** The chat area: rooms, participation, events and the polling feed; a sweep expires idle sessions. */
export function chatArea(core: Core): Area {
  const chat = buildChat(core);
  const moderation = moderationArea({ db: core.db, log: core.log, users: core.users, config: core.config }, chat.context);
  const roomReads = new RoomReads({
    db: core.db,
    rooms: chat.rooms,
    roomLists: chat.roomLists,
    moderatedView: moderation.roomDetails,
    commits: core.database.commits,
    maxBytes: core.config.crowdReadsCacheBytes,
  });
  core.shapes.register('chat.event', EVENT_SHAPE);
  core.topics.register(ROOM_KIND, {
    carries: { kind: 'chat.event', cursorKey: 'u' },
    exists: (app, id) => chat.feeds.assertExists(app, id),
    replay: (app, id, cursor, limit, began) => chat.feeds.since(app, id, cursor, limit, began),
    doc: { events: ['chat.event'], who: 'anyone with the app token; the room must exist (else not_found). Events carry seq and cursor; subscribe with a cursor to resume.' },
  });
  core.users.onPurge((app, userId, byUserId) => chat.messages.purgeEverywhere(app, userId, byUserId));
  const every = Math.min(30, Math.max(1, core.config.sessionIdleSeconds / 4)) * 1000;
  let sweeping: Promise<void> | undefined;
  const timer = setInterval(() => {
    // A slow sweep is not stacked on: the next tick after it finishes runs the next one. While the
    // disk is full it waits (nothing it does is lost: idle sessions and overdue messages stay due).
    if (!core.database.storage.mayWrite()) return;
    sweeping ??= chat.sweep
      .run()
      .catch((err: unknown) => logFailedTurn(core.log, err, 'chat sweep failed'))
      .finally(() => (sweeping = undefined));
  }, every);
  timer.unref();
  return {
    routes: [...roomRoutes({ ...chat, roomReads }), ...participationRoutes(chat), ...eventRoutes(chat), ...listRoutes(chat), ...moderation.routes],
    async close() {
      clearInterval(timer);
      await sweeping;
    },
  };
}
