import type { Application } from '../../apps/types.js';
import type { Tx } from '../../db/client.js';
import { badRequest, forbidden, notFound } from '../../errors.js';
import { acceptBody } from './body-rules.js';
import { activeUnlessHeld, adjustReplyCount, deleteAllOfUser, deleteSubtree, lockComment, updateComment } from '../store/comments.js';
import { adjustCommentCount } from '../store/conversations.js';
import { announce, type CommentsDeps, type LiveType } from '../deps.js';
import type { Comment, CommentView, Conversation } from '../views.js';

export interface DeleteResult {
  permanentdelete: boolean;
  comment: CommentView;
}

/** Edits the body (author only): keeps originalbody, sets edited. `blocked` when the profanity filter refuses the new body. */
export async function editComment(deps: CommentsDeps, app: Application, conversationId: string, commentId: string, userId: string, text: string): Promise<CommentView | 'blocked'> {
  const { conversation, comment } = await deps.reader.find(app, conversationId, commentId);
  if (comment.userId !== userId) throw forbidden('Only the author of a comment can edit it.');
  if (comment.deleted) throw badRequest(`Comment ${commentId} is deleted and cannot be edited.`, { commentid: 'is deleted' });
  const accepted = acceptBody(conversation, text);
  if (accepted === 'blocked') return 'blocked';
  const updated = await updateComment(deps.db, comment.id, {
    body: accepted.body,
    censored: accepted.censored,
    hashtags: accepted.hashtags,
    mentions: accepted.mentions,
    edited: true,
    modified: new Date(),
  });
  return finish(deps, app, conversation, 'comment.edited', updated, commentId);
}

/**
 * Logical delete or undelete by the author or a moderator. With permanentifnoreplies a comment
 * without replies is removed instead, and so is each logically deleted ancestor left childless.
 */
export async function setDeleted(
  deps: CommentsDeps,
  app: Application,
  conversationId: string,
  commentId: string,
  userId: string,
  deleted: boolean,
  permanentIfNoReplies: boolean,
): Promise<DeleteResult> {
  const { conversation, comment } = await deps.reader.find(app, conversationId, commentId);
  await assertOwnerOrModerator(deps, app, comment, userId);
  if (deleted && permanentIfNoReplies) {
    const removed = await deps.db.transaction(async (tx) => {
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
      const view = await deps.reader.renderOne(app, conversation, comment);
      announce(deps, app, conversation, 'comment.deleted', view);
      return { permanentdelete: true, comment: view };
    }
  }
  const updated = await updateComment(deps.db, comment.id, { deleted, active: deleted ? false : activeUnlessHeld, modified: new Date() });
  const after = await finish(deps, app, conversation, deleted ? 'comment.deleted' : 'comment.edited', updated, commentId);
  return { permanentdelete: false, comment: after };
}

/** Removes the comment and every reply below it. */
export async function deletePermanently(deps: CommentsDeps, app: Application, conversationId: string, commentId: string, userId: string | undefined): Promise<DeleteResult> {
  const { conversation, comment, view } = await deps.reader.one(app, conversationId, commentId);
  if (userId !== undefined && userId !== '') await assertOwnerOrModerator(deps, app, comment, userId);
  const removed = await deps.db.transaction(async (tx) => {
    const locked = await lockComment(tx, conversation.key, comment.id);
    if (locked === undefined) return false;
    await removeInTx(tx, conversation, locked);
    return true;
  });
  if (!removed) throw notFound(`Comment ${commentId} not found in conversation ${conversationId}.`);
  announce(deps, app, conversation, 'comment.deleted', view);
  return { permanentdelete: true, comment: view };
}

/** Global purge: every comment of the user in this application is logically deleted. */
export async function purgeUser(deps: CommentsDeps, app: Application, userId: string): Promise<number> {
  const changed = await deleteAllOfUser(deps.db, app.id, userId, new Date());
  if (changed > 0) deps.cache.changedEverywhere(app.id);
  return changed;
}

async function removeInTx(tx: Tx, conversation: Conversation, comment: Comment): Promise<void> {
  const removed = await deleteSubtree(tx, conversation.key, comment.id);
  if (comment.parentId !== '') await adjustReplyCount(tx, conversation.key, comment.parentId, -1);
  await adjustCommentCount(tx, conversation.key, -removed);
}

/** The author, or a user whose role is moderator or admin. */
async function assertOwnerOrModerator(deps: CommentsDeps, app: Application, comment: Comment, userId: string): Promise<void> {
  if (comment.userId === userId) return;
  const user = await deps.users.get(app, userId);
  if (user === undefined || user.role === 'user') throw forbidden(`User ${userId} is neither the author of the comment nor a moderator.`);
}

/** Renders an updated comment and announces it; 404 when it vanished meanwhile. */
export async function finish(deps: CommentsDeps, app: Application, conversation: Conversation, type: LiveType, updated: Comment | undefined, commentId: string): Promise<CommentView> {
  if (updated === undefined) throw notFound(`Comment ${commentId} not found in conversation ${conversation.conversationId}.`);
  const view = await deps.reader.renderOne(app, conversation, updated);
  announce(deps, app, conversation, type, view);
  return view;
}
