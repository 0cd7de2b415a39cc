import type { ChatContext } from '../context.js';
import { roomView } from '../views.js';
import type { EventViews } from './event-views.js';
import type { Messages } from './messages.js';
import type { Participation } from './participation.js';
import type { Posting } from './posting.js';
import type { RoomDirectory } from './room-directory.js';
import type { RoomEffects } from './room-effects.js';

export interface ChatContextDeps {
  rooms: RoomDirectory;
  views: EventViews;
  messages: Messages;
  posting: Posting;
  effects: RoomEffects;
  participation: Participation;
}

/** The chat core as its moderation sub-area reaches it. */
export function chatContext({ rooms, views, messages, posting, effects, participation }: ChatContextDeps): ChatContext {
  return {
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
}
