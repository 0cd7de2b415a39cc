import { eq } from 'drizzle-orm';
import type { Application } from '../apps/types.js';
import type { Tx } from '../db/client.js';
import { chatEvents, type StoredReaction } from '../db/schema/chat.js';
import type { EventView, Room } from './context.js';
import type { Messages } from './messages.js';
import type { Posting } from './posting.js';

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
  constructor(
    private readonly posting: Posting,
    private readonly messages: Messages,
  ) {}

  async react(app: Application, room: Room, eventId: string, userId: string, reaction: string, reacted: boolean): Promise<EventView> {
    const sender = await this.posting.sender(app, room, userId);
    const target = await this.messages.require(app, room.id, eventId);
    return this.posting.post(app, room, sender, { eventtype: 'reaction', body: reaction, replyToId: target.id, targetAuthor: target.userId }, (tx) =>
      this.update(tx, target.id, reaction, userId, reacted),
    );
  }

  /** Read-modify-write under the row lock, so concurrent reactions on one event all count. */
  private async update(tx: Tx, eventId: string, type: string, userId: string, reacted: boolean): Promise<void> {
    const [row] = await tx.select({ reactions: chatEvents.reactions }).from(chatEvents).where(eq(chatEvents.id, eventId)).for('update');
    if (row === undefined) return;
    const reactions = applyReaction(row.reactions, type, userId, reacted);
    const likeCount = reactions.find((r) => r.type === 'like')?.users.length ?? 0;
    await tx.update(chatEvents).set({ reactions, likeCount }).where(eq(chatEvents.id, eventId));
  }
}
