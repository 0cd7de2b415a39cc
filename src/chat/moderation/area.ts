import type { Config } from '../../config.js';
import type { Db } from '../../db/client.js';
import type { UserService } from '../../users/service.js';
import type { ChatContext } from '../context.js';
import { moderationRoutes } from './routes.js';
import { EventModeration } from './services/event-queue.js';
import { UserEffects } from './services/user-effects.js';
import { UserReports } from './services/user-reports.js';

/** What chat moderation is built from, beside the chat it moderates. */
export interface ModerationDeps {
  db: Db;
  users: Pick<UserService, 'get' | 'require' | 'getMany'>;
  config: Pick<Config, 'userReportWindowSeconds'>;
}

/** Chat moderation: its services, which reach chat only through `chat`, and their routes. */
export function moderationArea(deps: ModerationDeps, chat: ChatContext) {
  const parts = { ...deps, chat };
  return moderationRoutes({ events: new EventModeration(parts), reports: new UserReports(parts), effects: new UserEffects(parts) });
}
