import type { Application } from '../../apps/types.js';
import type { Db } from '../../db/client.js';
import { decodeCursor, pageOf } from '../../http/cursor.js';
import type { UserService } from '../../users/service.js';
import { listReactors } from '../store/reactions.js';
import type { Room } from '../types.js';
import type { EventView } from '../views.js';
import type { Messages } from './messages.js';
import { withOwnReaction } from './own-reactions.js';
import type { Posting } from './posting.js';

export interface ReactionsDeps {
  db: Db;
  users: UserService;
  posting: Posting;
  messages: Messages;
}

const isPosition = (x: unknown): x is number => Number.isSafeInteger(x) && (x as number) > 0;
/** Targets remembered as found; a full memory is emptied (forgetting only costs a read). */
const KNOWN_TARGETS = 10_000;

/**
 * Reactions (`like`, `emoji:...`): a `reaction` event whose replyto is the updated target. The
 * change joins the feed's group commit with the event (see likesWith, applyReactions), so a crowd
 * reacting to one event costs about what a crowd of chat posts does.
 */
export class Reactions {
  /**
   * Events of a room this node found before (`{roomid}/{eventid}`). A reaction to an unknown one
   * reads it first (404 before joining a batch); to a known one it goes straight to the batch,
   * whose statement finds the target in the room or refuses the reaction with 404, so a crowd
   * liking one event reads it once, and a target deleted since is still refused.
   */
  private readonly knownTargets = new Set<string>();

  constructor(private readonly deps: ReactionsDeps) {}

  async react(app: Application, room: Room, eventId: string, userId: string, reaction: string, reacted: boolean): Promise<EventView> {
    const sender = await this.deps.posting.sender(app, room, userId);
    await this.requireTarget(app, room, eventId);
    const view = await this.deps.posting.post(app, room, sender, {
      eventtype: 'reaction',
      body: reaction,
      replyToId: eventId,
      reaction: { eventId, type: reaction, userId, reacted },
    });
    // Others of the same batch may have pushed the user out of the latest listed; their answer still shows their reaction.
    if (!reacted || view.replyto === null) return view;
    const { user } = sender;
    const target = withOwnReaction(view.replyto, reaction, { userid: user.userId, handle: user.handle, displayname: user.displayName });
    // Unchanged, the answer is the view whose JSON the push and the notification already made.
    return target === view.replyto ? view : { ...view, replyto: target };
  }

  private async requireTarget(app: Application, room: Room, eventId: string): Promise<void> {
    const key = `${room.id}/${eventId}`;
    if (this.knownTargets.has(key)) return;
    await this.deps.messages.require(app, room.id, eventId);
    if (this.knownTargets.size >= KNOWN_TARGETS) this.knownTargets.clear();
    this.knownTargets.add(key);
  }

  /** Everyone who reacted with `type` to the event, newest first, a page at a time. */
  async reactors(app: Application, room: Room, eventId: string, type: string, cursor: string, limit: number) {
    const target = await this.deps.messages.require(app, room.id, eventId);
    const before = cursor === '' ? 0 : decodeCursor(cursor, isPosition);
    const found = await listReactors(this.deps.db, target.id, type, before, limit + 1);
    const page = pageOf(found, limit, (r) => r.n);
    const users = await this.deps.users.getMany(
      app,
      page.items.map((r) => r.userId),
    );
    const items = page.items.map((r) => {
      const u = users.get(r.userId);
      return { userid: r.userId, handle: u?.handle ?? '', displayname: u?.displayName ?? '', pictureurl: u?.pictureUrl ?? '', added: r.added.toISOString() };
    });
    const count = target.reactions.find((r) => r.type === type)?.count ?? 0;
    return { kind: 'list.chatreactionusers', eventid: target.id, reaction: type, count, cursor: page.next, more: page.next !== '', itemcount: items.length, users: items };
  }
}
