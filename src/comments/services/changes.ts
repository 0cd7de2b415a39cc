import type { Application } from '../../apps/types.js';
import type { Db, Tx } from '../../db/client.js';
import { badRequest, forbidden, notFound } from '../../errors.js';
import type { UserService } from '../../users/service.js';
import { activeUnlessHeld, adjustReplyCount, deleteAllOfUser, deleteSubtree, lockComment, updateComment } from '../store/comments.js';
import { adjustCommentCount } from '../store/conversations.js';
import type { Comment, Conversation } from '../types.js';
import type { CommentView } from '../views.js';
import { acceptBody } from './body-rules.js';
import type { PageCache } from './page-cache.js';
import type { Publishing } from './publishing.js';
import type { Reader } from './reading.js';

export interface DeleteResult {
  permanentdelete: boolean;
  comment: CommentView;
}

export interface ChangesDeps {
  db: Db;
  users: Pick<UserService, 'get'>;
  cache: PageCache;
  reader: Reader;
  publishing: Publishing;
}

/** Edits, deletes (logical and permanent) and the global purge of a user's comments. */
export class Changes {
  constructor(private readonly deps: ChangesDeps) {}

  /** Edits the body (author only): keeps originalbody, sets edited. `blocked` when the profanity filter refuses the new body. */
  async edit(app: Application, conversationId: string, commentId: string, userId: string, text: string): Promise<CommentView | 'blocked'> {
    const { conversation, comment } = await this.deps.reader.find(app, conversationId, commentId);
    if (comment.userId !== userId) throw forbidden('Only the author of a comment can edit it.');
    if (comment.deleted) throw badRequest(`Comment ${commentId} is deleted and cannot be edited.`, { commentid: 'is deleted' });
    const accepted = acceptBody(conversation, text);
    if (accepted === 'blocked') return 'blocked';
    const updated = await updateComment(this.deps.db, comment.id, {
      body: accepted.body,
      censored: accepted.censored,
      hashtags: accepted.hashtags,
      mentions: accepted.mentions,
      edited: true,
      modified: new Date(),
    });
    return this.deps.publishing.announceUpdate(app, conversation, 'comment.edited', updated, commentId);
  }

  /**
   * Logical delete or undelete by the author or a moderator. With permanentifnoreplies a comment
   * without replies is removed instead, and so is each logically deleted ancestor left childless.
   */
  async setDeleted(app: Application, conversationId: string, commentId: string, userId: string, deleted: boolean, permanentIfNoReplies: boolean): Promise<DeleteResult> {
    const { conversation, comment } = await this.deps.reader.find(app, conversationId, commentId);
    await this.assertOwnerOrModerator(app, comment, userId);
    if (deleted && permanentIfNoReplies) {
      const removed = await this.deps.db.transaction(async (tx) => {
        const locked = await lockComment(tx, conversation.key, comment.id);
        if (locked === undefined || locked.replyCount > 0) return false;
        await removeInTx(tx, conversation, locked);
        let parentId = locked.parentId;
        while (parentId !== '') {
          const parent = await lockComment(tx, conversation.key, parentId);
          if (parent === undefined || !parent.deleted || parent.replyCount > 0) break;
          await removeInTx(tx, conversation, parent);
          parentId = parent.parentId;
        }
        return true;
      });
      if (removed) {
        const view = await this.deps.reader.renderOne(app, conversation, comment);
        this.deps.publishing.announce(app, conversation, 'comment.deleted', view);
        return { permanentdelete: true, comment: view };
      }
    }
    const updated = await updateComment(this.deps.db, comment.id, { deleted, active: deleted ? false : activeUnlessHeld, modified: new Date() });
    const after = await this.deps.publishing.announceUpdate(app, conversation, deleted ? 'comment.deleted' : 'comment.edited', updated, commentId);
    return { permanentdelete: false, comment: after };
  }

  /** Removes the comment and every reply below it. */
  async deletePermanently(app: Application, conversationId: string, commentId: string, userId: string | undefined): Promise<DeleteResult> {
    const { conversation, comment, view } = await this.deps.reader.one(app, conversationId, commentId);
    if (userId !== undefined && userId !== '') await this.assertOwnerOrModerator(app, comment, userId);
    const removed = await this.deps.db.transaction(async (tx) => {
      const locked = await lockComment(tx, conversation.key, comment.id);
      if (locked === undefined) return false;
      await removeInTx(tx, conversation, locked);
      return true;
    });
    if (!removed) throw notFound(`Comment ${commentId} not found in conversation ${conversationId}.`);
    this.deps.publishing.announce(app, conversation, 'comment.deleted', view);
    return { permanentdelete: true, comment: view };
  }

  /** Global purge: every comment of the user in this application is logically deleted. */
  async purgeUser(app: Application, userId: string): Promise<number> {
    const changed = await deleteAllOfUser(this.deps.db, app.id, userId, new Date());
    if (changed > 0) this.deps.cache.changedEverywhere(app.id);
    return changed;
  }

  /** The author, or a user whose role is moderator or admin. */
  private async assertOwnerOrModerator(app: Application, comment: Comment, userId: string): Promise<void> {
    if (comment.userId === userId) return;
    const user = await this.deps.users.get(app, userId);
    if (user === undefined || user.role === 'user') throw forbidden(`User ${userId} is neither the author of the comment nor a moderator.`);
  }
}

async function removeInTx(tx: Tx, conversation: Conversation, comment: Comment): Promise<void> {
  const removed = await deleteSubtree(tx, conversation.key, comment.id);
  if (comment.parentId !== '') await adjustReplyCount(tx, conversation.key, comment.parentId, -1);
  await adjustCommentCount(tx, conversation.key, -removed);
}
