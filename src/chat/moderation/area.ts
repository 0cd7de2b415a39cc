import type { Config } from '../../config.js';
import type { Db } from '../../db/client.js';
import { ReadBatcher } from '../../db/read-batcher.js';
import type { Logger } from '../../logger.js';
import type { UserService } from '../../users/service.js';
import type { RouteDef } from '../../http/route.js';
import type { ChatContext } from '../context.js';
import { moderationRoutes } from './routes.js';
import { EventModeration } from './services/event-queue.js';
import { type RoomDetails, roomDetailsFrom } from './services/room-view.js';
import { roomsWithModeration } from './store.js';
import { UserEffects } from './services/user-effects.js';
import { UserReports } from './services/user-reports.js';

/** What chat moderation is built from, beside the chat it moderates. */
export interface ModerationDeps {
  db: Db;
  log: Logger;
  users: Pick<UserService, 'get' | 'require' | 'getMany'>;
  config: Pick<Config, 'userReportWindowSeconds'>;
}

export interface Moderation {
  routes: RouteDef[];
  /** The app's room as the chat.room object with who is bounced, flagged, shadow banned, muted and reported in it, and when it changes by itself; 404 when there is none. */
  roomDetails: RoomDetails;
}

/** Chat moderation: its services, which reach chat only through `chat`, and their routes. */
export function moderationArea(deps: ModerationDeps, chat: ChatContext): Moderation {
  const details = new ReadBatcher({ read: (ids: string[]) => roomsWithModeration(deps.db, ids), keyOf: (id) => id, keyOfValue: (found) => found.room.id, log: deps.log, name: 'room_details' });
  const roomDetails = roomDetailsFrom(chat, details);
  const parts = { ...deps, chat, roomDetails };
  return {
    routes: moderationRoutes({ events: new EventModeration(parts), reports: new UserReports(parts), effects: new UserEffects(parts) }),
    roomDetails,
  };
}
