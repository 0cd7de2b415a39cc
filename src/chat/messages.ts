import { eq, sql } from 'drizzle-orm';
import type { Application } from '../apps/types.js';
import type { Core } from '../core.js';
import { chatEvents } from '../db/schema/chat.js';
import { badRequest, forbidden, notFound } from '../errors.js';
import { maskProfanity } from '../text/profanity.js';
import { extractHashtags } from '../text/tags.js';
import type { ChatEvent, EventView, Room } from './context.js';
import type { Draft, Posting } from './posting.js';
import type { EventViews } from './event-views.js';
import { deleteEvent, deleteUserEvents, findEvent, hasReplies, updateEvent } from './store/events.js';

export type MessageInput = Omit<Draft, 'eventtype' | 'replyToId' | 'parentId' | 'hierarchy' | 'targetAuthor'>;

/** Replies, quotes, edits, deletes and purges of chat events. */
export class Messages {
  constructor(
    private readonly core: Core,
    private readonly posting: Posting,
    private readonly views: EventViews,
  ) {}

  async require(app: Application, roomId: string, eventId: string): Promise<ChatEvent> {
    const event = await findEvent(this.core.db, app.id, roomId, eventId);
    if (event === undefined) throw notFound(`Event ${eventId} not found in room ${roomId}.`);
    return event;
  }

  /** A threaded reply: parentid and hierarchy (ancestors, root first); the parent's replycount grows. */
  async reply(app: Application, room: Room, parentId: string, userId: string, input: MessageInput): Promise<EventView> {
    const sender = await this.posting.sender(app, room, userId);
    const parent = await this.require(app, room.id, parentId);
    return this.posting.post(app, room, sender, { ...input, eventtype: 'reply', parentId: parent.id, hierarchy: [...parent.hierarchy, parent.id], targetAuthor: parent.userId }, async (tx) => {
      await tx
        .update(chatEvents)
        .set({ replyCount: sql`${chatEvents.replyCount} + 1` })
        .where(eq(chatEvents.id, parent.id));
    });
  }

  /** A quoted reply: replyto holds the quoted event. */
  async quote(app: Application, room: Room, quotedId: string, userId: string, input: MessageInput): Promise<EventView> {
    const sender = await this.posting.sender(app, room, userId);
    const quoted = await this.require(app, room.id, quotedId);
    return this.posting.post(app, room, sender, { ...input, eventtype: 'quote', replyToId: quoted.id, targetAuthor: quoted.userId });
  }

  /** The owner edits the body; a `replace` event carries the edited event. */
  async edit(app: Application, room: Room, eventId: string, userId: string, body: string): Promise<EventView> {
    const event = await this.require(app, room.id, eventId);
    if (event.userId !== userId) throw forbidden(`Only the author of event ${eventId} may edit it.`);
    const masked = room.enableProfanityFilter ? maskProfanity(body).text : body;
    const replace = await this.posting.system(app, room, { eventtype: 'replace', userid: userId, replyto: event.id }, async (tx) => {
      await updateEvent(tx, event.id, { body: masked, originalBody: body, edited: true, hashtags: extractHashtags(body) });
    });
    return replace.replyto as EventView;
  }

  /** Logical delete (or undelete), emitting `replace`; permanent when asked and the event has no replies. */
  async setDeleted(app: Application, room: Room, eventId: string, byUserId: string, deleted: boolean, permanentIfNoReplies: boolean, staff: boolean) {
    const event = await this.require(app, room.id, eventId);
    await this.assertMayChange(app, event, byUserId, staff);
    if (deleted && permanentIfNoReplies && !(await hasReplies(this.core.db, event.id))) return this.remove(app, room, event, byUserId);
    const replace = await this.posting.system(app, room, { eventtype: 'replace', userid: byUserId, replyto: event.id }, async (tx) => {
      await updateEvent(tx, event.id, { deleted });
    });
    return { kind: 'delete.event', permanentdelete: false, event: replace.replyto as EventView };
  }

  /** Permanent delete, emitting `remove` whose replyto names the removed event. */
  async deletePermanently(app: Application, room: Room, eventId: string, byUserId: string | undefined, staff: boolean) {
    const event = await this.require(app, room.id, eventId);
    if (byUserId !== undefined) await this.assertMayChange(app, event, byUserId, staff);
    return this.remove(app, room, event, byUserId ?? null);
  }

  /** Removes the user's events in the room and publishes `purge` naming them; `purged` counts the removed events. */
  async purge(app: Application, room: Room, userId: string, byUserId: string): Promise<{ event: EventView; purged: number }> {
    let purged = 0;
    const event = await this.posting.system(app, room, { eventtype: 'purge', userid: userId, custompayload: JSON.stringify({ byuserid: byUserId }) }, async (tx) => {
      purged = await deleteUserEvents(tx, app.id, userId, room.id);
    });
    return { event, purged };
  }

  private async remove(app: Application, room: Room, event: ChatEvent, byUserId: string | null) {
    const before = await this.views.view(app, event);
    await this.posting.system(app, room, { eventtype: 'remove', userid: byUserId, replyto: event.id }, async (tx) => {
      await deleteEvent(tx, event.id);
    });
    return { kind: 'delete.event', permanentdelete: true, event: before };
  }

  private async assertMayChange(app: Application, event: ChatEvent, byUserId: string, staff: boolean): Promise<void> {
    if (event.userId === byUserId || staff) return;
    const user = await this.core.users.get(app, byUserId);
    if (user === undefined) throw badRequest(`User ${byUserId} not found.`, { userid: 'is not a known user' });
    if (user.role === 'user') throw forbidden(`User ${byUserId} may not change event ${event.id}: only its author or a moderator may.`);
  }
}
