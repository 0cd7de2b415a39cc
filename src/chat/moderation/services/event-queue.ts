import type { Application } from '../../../apps/types.js';
import type { Core } from '../../../core.js';
import { badRequest, forbidden, notFound } from '../../../errors.js';
import type { Queryable } from '../../../db/client.js';
import type { ChatContext, ChatEvent, EventView, Room } from '../../context.js';
import { requireReporter } from './reporter.js';
import * as store from '../store.js';

/** api-surface.md gives this text verbatim, two spaces included. */
export const NOT_MODERATABLE = 'The specified event  is not in a moderatable state.';

/** Message reports and the event moderation queue. */
export class EventModeration {
  constructor(
    private readonly core: Core,
    private readonly chat: ChatContext,
  ) {}

  /**
   * Records the report once per reporter. A message still in the stream leaves it at once: a
   * `replace` event carrying it inactive tells pollers, written in the same transaction.
   */
  async report(app: Application, roomId: string, eventId: string, reporterId: string, reportType: string): Promise<EventView> {
    const room = await this.chat.rooms.require(app, roomId);
    const event = await this.chat.events.require(app, roomId, eventId);
    await requireReporter(this.core, this.chat, app, room.id, reporterId);
    const author = event.userId === null ? undefined : await this.core.users.get(app, event.userId);
    if (author !== undefined && author.role !== 'user') throw forbidden('Events by a moderator or admin cannot be reported.');
    if (await store.hasReportedEvent(this.core.db, event.id, reporterId)) return this.chat.events.view(app, event);

    const record = (tx: Queryable) => store.recordEventReport(tx, { appId: app.id, eventId: event.id, userId: reporterId, reportType }, room.maxReports);
    if (event.active && event.moderation === 'na' && event.seq !== null) {
      await this.chat.publish.system(app, room, { eventtype: 'replace', userid: event.userId, replyto: event.id }, record);
    } else {
      await this.core.db.transaction(record);
    }
    return this.chat.events.view(app, await this.chat.events.require(app, room.id, event.id));
  }

  /**
   * Approved events enter the feed at a new position, in the transaction that approves them, so
   * every poller sees them; rejected ones stay hidden.
   */
  async decide(app: Application, eventId: string, approve: boolean): Promise<EventView> {
    const found = await store.findAppEvent(this.core.db, app.id, eventId);
    if (found === undefined) throw notFound(`Event ${eventId} not found.`);
    const decideIn = async (tx: Queryable): Promise<ChatEvent> => {
      const decided = await store.decideEvent(tx, app.id, eventId, approve);
      if (decided === undefined) throw badRequest(NOT_MODERATABLE, { eventid: 'is not awaiting moderation' });
      return decided;
    };
    if (!approve) return this.chat.events.view(app, await this.core.db.transaction(decideIn));
    const room = await this.chat.rooms.require(app, found.roomId);
    const [published] = await this.chat.publish.stored(app, room, [eventId], async (tx) => {
      await decideIn(tx);
    });
    // The decision took the event out of the feed in the same transaction, so it is always published.
    if (published === undefined) throw new Error(`approved event ${eventId} was not published`);
    return published;
  }

  /** The queue, of one room or of the whole application; `room` is that room, or null. */
  async queue(app: Application, roomId: string | undefined, after: string, limit: number): Promise<{ room: Room | null; rows: ChatEvent[] }> {
    const room = roomId === undefined ? null : await this.chat.rooms.require(app, roomId);
    return { room, rows: await store.listQueue(this.core.db, app.id, roomId, after, limit) };
  }
}
