import type { Application } from '../../../apps/types.js';
import { forbidden } from '../../../errors.js';
import type { UserService } from '../../../users/service.js';
import { effectActive, type User } from '../../../users/types.js';
import type { ChatContext } from '../../context.js';

/** What checking a reporter reads: the user, and their effects in the room. */
export interface ReporterDeps {
  users: Pick<UserService, 'require'>;
  chat: Pick<ChatContext, 'effects'>;
}

/** The reporting user: must exist (404), and be neither banned globally nor bounced from the room (403). */
export async function requireReporter(deps: ReporterDeps, app: Application, roomId: string, userId: string): Promise<User> {
  const [user, effects] = await Promise.all([deps.users.require(app, userId), deps.chat.effects.active(app, roomId, userId)]);
  if (effectActive(user.banned, user.bannedUntil)) throw forbidden(`User ${userId} is banned and cannot report.`);
  if (effects.some((e) => e.effect === 'bounce')) throw forbidden(`User ${userId} is barred from this room and cannot report.`);
  return user;
}
