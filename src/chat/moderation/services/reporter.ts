import type { Application } from '../../../apps/types.js';
import type { Core } from '../../../core.js';
import { forbidden } from '../../../errors.js';
import { effectActive, type User } from '../../../users/types.js';
import type { ChatContext } from '../../context.js';

/** The reporting user: must exist (404), and be neither banned globally nor bounced from the room (403). */
export async function requireReporter(core: Core, chat: ChatContext, app: Application, roomId: string, userId: string): Promise<User> {
  const [user, effects] = await Promise.all([core.users.require(app, userId), chat.effects.active(app, roomId, userId)]);
  if (effectActive(user.banned, user.bannedUntil)) throw forbidden(`User ${userId} is banned and cannot report.`);
  if (effects.some((e) => e.effect === 'bounce')) throw forbidden(`User ${userId} is barred from this room and cannot report.`);
  return user;
}
