import type { Area, Core } from '../core.js';
import { buildChat } from './chat.js';
import { moderationArea } from './moderation/area.js';
import { eventRoutes } from './routes/events.js';
import { listRoutes } from './routes/lists.js';
import { participationRoutes } from './routes/participation.js';
import { roomRoutes } from './routes/rooms.js';

/** The chat area: rooms, participation, events and the polling feed; a sweep expires idle sessions. */
export function chatArea(core: Core): Area {
  const chat = buildChat(core);
  core.topics.register('room', {
    exists: (app, id) => chat.feeds.assertExists(app, id),
    replay: (app, id, cursor, limit) => chat.feeds.since(app, id, cursor, limit),
    doc: { events: ['chat.event'], who: 'anyone with the app token; the room must exist (else not_found). Events carry seq and cursor; subscribe with a cursor to resume.' },
  });
  const every = Math.min(30, Math.max(1, core.config.sessionIdleSeconds / 4)) * 1000;
  let sweeping: Promise<void> | undefined;
  const timer = setInterval(() => {
    // A slow sweep is not stacked on: the next tick after it finishes runs the next one.
    sweeping ??= chat
      .sweep()
      .catch((err: unknown) => core.log.error({ err }, 'chat sweep failed'))
      .finally(() => (sweeping = undefined));
  }, every);
  timer.unref();
  return {
    routes: [
      ...roomRoutes(core, chat),
      ...participationRoutes(core, chat),
      ...eventRoutes(core, chat),
      ...listRoutes(core, chat),
      ...moderationArea({ db: core.db, users: core.users, config: core.config }, chat.context),
    ],
    async close() {
      clearInterval(timer);
      await sweeping;
    },
  };
}
