import type { Application } from '../../../apps/types.js';
import type { Db, Queryable } from '../../../db/client.js';
import { badRequest, forbidden, notFound } from '../../../errors.js';
import { listPayload, pageOf, stringCursor } from '../../../http/cursor.js';
import type { UserService } from '../../../users/service.js';
import type { ChatContext, ChatEvent, EventView } from '../../context.js';
import * as store from '../store.js';
import { type ReporterDeps, requireReporter } from './reporter.js';

/** api-surface.md gives this text verbatim, two spaces included. */
export const NOT_MODERATABLE = 'The specified event  is not in a moderatable state.';

export interface EventModerationDeps extends ReporterDeps {
  db: Db;
  users: Pick<UserService, 'get' | 'require'>;
  chat: Pick<ChatContext, 'rooms' | 'events' | 'publish' | 'effects'>;
}

const eventIdOf = (e: ChatEvent) => e.id;

/** Message reports and the event moderation queue. */
export class EventModeration {
  constructor(private readonly deps: EventModerationDeps) {}

  /**
   * Records the report once per reporter. A message still in the stream leaves it at once: a
   * `replace` event carrying it inactive tells pollers, written in the same transaction.
   */
  async report(app: Application, roomId: string, eventId: string, reporterId: string, reportType: string): Promise<EventView> {
    const { db, users, chat } = this.deps;
    const room = await chat.rooms.require(app, roomId);
    const event = await chat.events.require(app, roomId, eventId);
    await requireReporter(this.deps, app, room.id, reporterId);
    const author = event.userId === null ? undefined : await users.get(app, event.userId);
    if (author !== undefined && author.role !== 'user') throw forbidden('Events by a moderator or admin cannot be reported.');
    if (await store.hasReportedEvent(db, event.id, reporterId)) return chat.events.view(app, event);

    const record = (tx: Queryable) => store.recordEventReport(tx, { appId: app.id, eventId: event.id, userId: reporterId, reportType }, room.maxReports);
    if (event.active && event.moderation === 'na' && event.seq !== null) {
      await chat.publish.system(app, room, { eventtype: 'replace', userid: event.userId, replyto: event.id }, record);
    } else {
      await db.transaction(record);
    }
    return chat.events.view(app, await chat.events.require(app, room.id, event.id));
  }

  /**
   * Approved events enter the feed at a new position, in the transaction that approves them, so
   * every poller sees them; rejected ones stay hidden.
   */
  async decide(app: Application, eventId: string, approve: boolean): Promise<EventView> {
    const { db, chat } = this.deps;
    const found = await store.findAppEvent(db, app.id, eventId);
    if (found === undefined) throw notFound(`Event ${eventId} not found.`);
    const decideIn = async (tx: Queryable): Promise<ChatEvent> => {
      const decided = await store.decideEvent(tx, app.id, eventId, approve);
      if (decided === undefined) throw badRequest(NOT_MODERATABLE, { eventid: 'is not awaiting moderation' });
      return decided;
    };
    if (!approve) return chat.events.view(app, await db.transaction(decideIn));
    const room = await chat.rooms.require(app, found.roomId);
    const [published] = await chat.publish.stored(app, room, [eventId], async (tx) => {
      await decideIn(tx);
    });
    // The decision took the event out of the feed in the same transaction, so it is always published.
    if (published === undefined) throw new Error(`approved event ${eventId} was not published`);
    return published;
  }

  /** One page of the queue, of one room (roomId given) or of the whole application, with that room (or null). */
  async queue(app: Application, roomId: string | undefined, cursor: string, limit: number) {
    const { db, chat } = this.deps;
    const after = stringCursor(cursor) ?? '';
    const within = roomId === undefined || roomId === '' ? undefined : roomId;
    const room = within === undefined ? null : await chat.rooms.require(app, within);
    const { items, next } = pageOf(await store.listQueue(db, app.id, within, after, limit + 1), limit, eventIdOf);
    const extra = { room: room === null ? null : chat.rooms.view(room) };
    return listPayload('list.chatevents', 'events', await chat.events.views(app, items), next, extra);
  }
}
