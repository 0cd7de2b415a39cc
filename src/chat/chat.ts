import type { Core } from '../core.js';
import { Commands } from './commands.js';
import type { ChatContext } from './context.js';
import { RoomEffects } from './effects.js';
import { EventViews } from './event-views.js';
import { RoomFeeds } from './feed/feed.js';
import { createFeedWriter } from './feed/publisher.js';
import { Messages } from './messages.js';
import { Participation } from './participants.js';
import { Posting } from './posting.js';
import { Reactions } from './reactions.js';
import { RoomService } from './room-service.js';
import { RoomDirectory } from './rooms.js';
import { dueForRelease, roomsWithUserEvents } from './store/events.js';
import { roomView } from './views.js';

/** Every part of the chat core, built once per server. */
export interface Chat {
  rooms: RoomDirectory;
  effects: RoomEffects;
  views: EventViews;
  feeds: RoomFeeds;
  participation: Participation;
  posting: Posting;
  messages: Messages;
  reactions: Reactions;
  commands: Commands;
  roomService: RoomService;
  context: ChatContext;
  /** Idle sessions out (with exit events), overdue delayed messages in. */
  sweep(): Promise<void>;
}

export function buildChat(core: Core): Chat {
  const rooms = new RoomDirectory(core);
  const effects = new RoomEffects(core);
  const views = new EventViews(core.db, core.users);
  const feeds = new RoomFeeds(core, rooms, views);
  const participation = new Participation(core, rooms);
  const posting = new Posting(core, effects, participation, createFeedWriter(core, views));
  const messages = new Messages(core, posting, views);
  const reactions = new Reactions(posting, messages);
  const commands = new Commands(core, posting, messages);
  const roomService = new RoomService(core, rooms, effects, participation, posting, feeds);

  const context: ChatContext = {
    rooms: {
      require: (app, id) => rooms.require(app, id),
      view: (room, extra) => roomView(room, extra),
    },
    events: {
      require: (app, roomId, id) => messages.require(app, roomId, id),
      views: (app, rows) => views.views(app, rows),
      view: (app, row) => views.view(app, row),
    },
    publish: {
      stored: (app, room, ids, prepare) => posting.stored(app, room, ids, prepare),
      system: (app, room, input, prepare) => posting.system(app, room, input, prepare),
    },
    effects: {
      active: (app, roomId, userId) => effects.active(app, roomId, userId),
      list: (app, roomId) => effects.list(app, roomId),
      set: (app, roomId, userId, effect, options) => effects.set(app, roomId, userId, effect, options),
      clear: (app, roomId, userId, effect) => effects.clear(app, roomId, userId, effect),
    },
    participants: {
      remove: (app, room, userId) => participation.leave(app, room, userId),
    },
    purge: (app, room, userId, byUserId) => messages.purge(app, room, userId, byUserId),
  };

  // A global purge removes the user's chat events room by room, each room getting its `purge` event.
  core.users.onPurge(async (app, userId, byUserId) => {
    for (const roomId of await roomsWithUserEvents(core.db, app.id, userId)) {
      const room = await rooms.get(app, roomId);
      if (room !== undefined) await messages.purge(app, room, userId, byUserId);
    }
  });

  async function sweep(): Promise<void> {
    for (const gone of await participation.sweep(core.config.sessionIdleSeconds)) {
      if (gone.room.enableEnterAndExit) await posting.system(gone.app, gone.room, { eventtype: 'exit', userid: gone.userId });
    }
    const due = await dueForRelease(core.db, new Date());
    const byRoom = new Map<string, { appId: string; ids: string[] }>();
    for (const d of due) {
      const entry = byRoom.get(d.roomId) ?? { appId: d.appId, ids: [] };
      entry.ids.push(d.id);
      byRoom.set(d.roomId, entry);
    }
    for (const [roomId, { appId, ids }] of byRoom) {
      const app = await core.apps.get(appId);
      const room = app === undefined ? undefined : await rooms.get(app, roomId);
      if (app !== undefined && room !== undefined) await posting.stored(app, room, ids);
    }
  }

  return { rooms, effects, views, feeds, participation, posting, messages, reactions, commands, roomService, context, sweep };
}
