import type { Application } from '../../apps/types.js';
import type { Tx } from '../../db/client.js';
import { lockReactions, setReactions } from '../store/events.js';
import type { Room, StoredReaction } from '../types.js';
import type { EventView } from '../views.js';
import type { Messages } from './messages.js';
import type { Posting } from './posting.js';

export interface ReactionsDeps {
  posting: Posting;
  messages: Messages;
}

/** Adds or removes `userId`'s reaction of `type`; a reaction un-reacted to zero keeps its entry, with no users (as the SDKs expect). */
export function applyReaction(reactions: StoredReaction[], type: string, userId: string, reacted: boolean): StoredReaction[] {
  const out = reactions.map((r) => ({ type: r.type, users: r.users.filter((u) => u !== userId || r.type !== type) }));
  if (reacted) {
    const existing = out.find((r) => r.type === type);
    if (existing === undefined) out.push({ type, users: [userId] });
    else existing.users.push(userId);
  }
  return out;
}

/** Reactions (`like`, `emoji:...`): a `reaction` event whose replyto is the updated target. */
export class Reactions {
  constructor(private readonly deps: ReactionsDeps) {}

  async react(app: Application, room: Room, eventId: string, userId: string, reaction: string, reacted: boolean): Promise<EventView> {
    const sender = await this.deps.posting.sender(app, room, userId);
    const target = await this.deps.messages.require(app, room.id, eventId);
    return this.deps.posting.post(app, room, sender, { eventtype: 'reaction', body: reaction, replyToId: target.id, targetAuthor: target.userId }, (tx) =>
      this.update(tx, target.id, reaction, userId, reacted),
    );
  }

  /** Read-modify-write under the row lock, so concurrent reactions on one event all count. */
  private async update(tx: Tx, eventId: string, type: string, userId: string, reacted: boolean): Promise<void> {
    const stored = await lockReactions(tx, eventId);
    if (stored === undefined) return;
    const reactions = applyReaction(stored, type, userId, reacted);
    const likeCount = reactions.find((r) => r.type === 'like')?.users.length ?? 0;
    await setReactions(tx, eventId, reactions, likeCount);
  }
}
