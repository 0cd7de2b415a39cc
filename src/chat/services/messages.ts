import type { Application } from '../../apps/types.js';
import type { Db } from '../../db/client.js';
import { badRequest, forbidden, notFound } from '../../errors.js';
import { maskProfanity } from '../../text/profanity.js';
import { extractHashtags } from '../../text/tags.js';
import type { UserService } from '../../users/service.js';
import { countReply, deleteEvent, deleteUserEvents, findEvent, hasReplies, roomsWithUserEvents, updateEvent } from '../store/events.js';
import type { ChatEvent, Room } from '../types.js';
import type { EventView } from '../views.js';
import type { EventViews } from './event-views.js';
import type { Draft, Posting } from './posting.js';
import type { RoomDirectory } from './room-directory.js';

export interface MessagesDeps {
  db: Db;
  users: UserService;
  rooms: RoomDirectory;
  posting: Posting;
  views: EventViews;
}

export type MessageInput = Omit<Draft, 'eventtype' | 'replyToId' | 'parentId' | 'hierarchy' | 'targetAuthor'>;

/** Replies, quotes, edits, deletes and purges of chat events. */
export class Messages {
  constructor(private readonly deps: MessagesDeps) {}

  async require(app: Application, roomId: string, eventId: string): Promise<ChatEvent> {
    const event = await findEvent(this.deps.db, app.id, roomId, eventId);
    if (event === undefined) throw notFound(`Event ${eventId} not found in room ${roomId}.`);
    return event;
  }

  /** A threaded reply: parentid and hierarchy (ancestors, root first); the parent's replycount grows. */
  async reply(app: Application, room: Room, parentId: string, userId: string, input: MessageInput): Promise<EventView> {
    const sender = await this.deps.posting.sender(app, room, userId);
    const parent = await this.require(app, room.id, parentId);
    return this.deps.posting.post(app, room, sender, { ...input, eventtype: 'reply', parentId: parent.id, hierarchy: [...parent.hierarchy, parent.id], targetAuthor: parent.userId }, (tx) =>
      countReply(tx, parent.id),
    );
  }

  /** A quoted reply: replyto holds the quoted event. */
  async quote(app: Application, room: Room, quotedId: string, userId: string, input: MessageInput): Promise<EventView> {
    const sender = await this.deps.posting.sender(app, room, userId);
    const quoted = await this.require(app, room.id, quotedId);
    return this.deps.posting.post(app, room, sender, { ...input, eventtype: 'quote', replyToId: quoted.id, targetAuthor: quoted.userId });
  }

  /** The owner edits the body; a `replace` event carries the edited event. */
  async edit(app: Application, room: Room, eventId: string, userId: string, body: string): Promise<EventView> {
    const event = await this.require(app, room.id, eventId);
    if (event.userId !== userId) throw forbidden(`Only the author of event ${eventId} may edit it.`);
    const masked = room.enableProfanityFilter ? maskProfanity(body).text : body;
    const replace = await this.deps.posting.system(app, room, { eventtype: 'replace', userid: userId, replyto: event.id }, async (tx) => {
      await updateEvent(tx, event.id, { body: masked, originalBody: body, edited: true, hashtags: extractHashtags(body) });
    });
    return replace.replyto as EventView;
  }

  /** Logical delete (or undelete), emitting `replace`; permanent when asked and the event has no replies. */
  async setDeleted(app: Application, room: Room, eventId: string, byUserId: string, deleted: boolean, permanentIfNoReplies: boolean, staff: boolean) {
    const event = await this.require(app, room.id, eventId);
    await this.assertMayChange(app, event, byUserId, staff);
    if (deleted && permanentIfNoReplies && !(await hasReplies(this.deps.db, event.id))) return this.remove(app, room, event, byUserId);
    const replace = await this.deps.posting.system(app, room, { eventtype: 'replace', userid: byUserId, replyto: event.id }, async (tx) => {
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
    const event = await this.deps.posting.system(app, room, { eventtype: 'purge', userid: userId, custompayload: JSON.stringify({ byuserid: byUserId }) }, async (tx) => {
      purged = await deleteUserEvents(tx, app.id, userId, room.id);
    });
    return { event, purged };
  }

  /** A global purge: the user's events go room by room, each room getting its `purge` event. */
  async purgeEverywhere(app: Application, userId: string, byUserId: string): Promise<void> {
    for (const roomId of await roomsWithUserEvents(this.deps.db, app.id, userId)) {
      const room = await this.deps.rooms.get(app, roomId);
      if (room !== undefined) await this.purge(app, room, userId, byUserId);
    }
  }

  private async remove(app: Application, room: Room, event: ChatEvent, byUserId: string | null) {
    const before = await this.deps.views.view(app, event);
    await this.deps.posting.system(app, room, { eventtype: 'remove', userid: byUserId, replyto: event.id }, async (tx) => {
      await deleteEvent(tx, event.id);
    });
    return { kind: 'delete.event', permanentdelete: true, event: before };
  }

  private async assertMayChange(app: Application, event: ChatEvent, byUserId: string, staff: boolean): Promise<void> {
    if (event.userId === byUserId || staff) return;
    const user = await this.deps.users.get(app, byUserId);
    if (user === undefined) throw badRequest(`User ${byUserId} not found.`, { userid: 'is not a known user' });
    if (user.role === 'user') throw forbidden(`User ${byUserId} may not change event ${event.id}: only its author or a moderator may.`);
  }
}
