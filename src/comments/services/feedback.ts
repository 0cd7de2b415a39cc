import type { Application } from '../../apps/types.js';
import type { Tx } from '../../db/client.js';
import { insertReport, lockComment, retally, setReaction, setVote, updateComment } from '../store/comments.js';
import { finish } from './changes.js';
import { keepingEmptied } from '../store/tally.js';
import type { CommentsDeps, LiveType } from '../deps.js';
import type { VoteValue } from '../schemas.js';
import type { Comment, CommentView, Conversation } from '../views.js';

/** One user's vote: up, down, or none/'' to take it back. */
export async function vote(deps: CommentsDeps, app: Application, conversationId: string, commentId: string, userId: string, value: VoteValue): Promise<CommentView> {
  const { view } = await change(deps, app, conversationId, commentId, userId, 'comment.voted', async (tx, c) => {
    await setVote(tx, c.id, userId, value === 'up' || value === 'down' ? value : undefined);
    return retally(tx, c.id, 'votes');
  });
  return view;
}

/** Adds (reacted true) or removes one user's reaction. */
export async function react(deps: CommentsDeps, app: Application, conversationId: string, commentId: string, userId: string, reaction: string, reacted: boolean): Promise<CommentView> {
  let added = false;
  const { conversation, view } = await change(deps, app, conversationId, commentId, userId, 'comment.reacted', async (tx, c) => {
    added = (await setReaction(tx, c.id, userId, reaction, reacted)) && reacted;
    const recounted = await retally(tx, c.id, 'reactions');
    const kept = recounted === undefined ? undefined : keepingEmptied(c.reactions, recounted.reactions);
    return kept === undefined ? recounted : updateComment(tx, c.id, { reactions: kept });
  });
  if (added) {
    deps.hooks.afterPublish({
      appId: app.id,
      eventType: 'commentreaction',
      containerTags: conversation.customTags,
      entity: 'comment',
      containerId: conversation.conversationId,
      containerCustomId: conversation.customId,
      payload: view,
      notify: view.userid === userId ? [] : [{ userid: view.userid, type: 'reaction' }],
      actorUserId: userId,
    });
  }
  return view;
}

/**
 * Records one report per user; when the reports reach the conversation's maxreports (the first
 * one when it is 0) an unmoderated comment goes inactive, flagged, into the moderation queue.
 */
export async function report(deps: CommentsDeps, app: Application, conversationId: string, commentId: string, userId: string, reportType: string): Promise<{ view: CommentView; recorded: boolean }> {
  let recorded = false;
  const { view } = await change(deps, app, conversationId, commentId, userId, 'comment.edited', async (tx, c, maxReports) => {
    recorded = await insertReport(tx, c.id, userId, reportType);
    if (!recorded) return c;
    const updated = await retally(tx, c.id, 'reports');
    if (updated === undefined || updated.moderation !== 'na' || updated.reports.length < maxReports) return updated;
    return updateComment(tx, c.id, { moderation: 'flagged', active: false, modified: new Date() });
  });
  return { view, recorded };
}

/** Runs a change under the comment's row lock (concurrent changes to one comment apply one at a time), then renders and announces. */
async function change(
  deps: CommentsDeps,
  app: Application,
  conversationId: string,
  commentId: string,
  userId: string,
  type: LiveType,
  apply: (tx: Tx, locked: Comment, maxReports: number) => Promise<Comment | undefined>,
): Promise<{ conversation: Conversation; view: CommentView }> {
  const conversation = await deps.conversations.require(app, conversationId);
  await deps.users.require(app, userId);
  const updated = await deps.db.transaction(async (tx) => {
    const locked = await lockComment(tx, conversation.key, commentId);
    return locked === undefined ? undefined : apply(tx, locked, conversation.maxReports);
  });
  return { conversation, view: await finish(deps, app, conversation, type, updated, commentId) };
}
