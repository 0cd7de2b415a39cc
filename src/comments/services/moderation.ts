import type { Application } from '../../apps/types.js';
import { decodeCursor, listPayload, pageOf } from '../../http/cursor.js';
import { badRequest, notFound } from '../../errors.js';
import { findCommentInApp, settleQueued } from '../store/comments.js';
import { finish } from './changes.js';
import { findConversationByKey, findConversationsByKeys } from '../store/conversations.js';
import type { CommentsDeps } from '../deps.js';
import { readQueue } from '../store/pages.js';
import { published } from './posting.js';
import { isTimeKey, timeKeyOf } from './reading.js';
import type { CommentView } from '../views.js';

/** Comments awaiting a moderator: held by pre-moderation or flagged by reports. */
export async function queue(deps: CommentsDeps, app: Application, conversationId: string, cursor: string, limit: number): Promise<unknown> {
  const conversation = conversationId === '' ? undefined : await deps.conversations.require(app, conversationId);
  const after = cursor === '' ? undefined : decodeCursor(cursor, isTimeKey);
  const rows = await readQueue(deps.db, app.id, conversation?.key, after, limit + 1);
  const { items, next } = pageOf(rows, limit, timeKeyOf);
  // A page may span conversations: each comment needs its own conversationid.
  const owners = new Map((await findConversationsByKeys(deps.db, [...new Set(items.map((c) => c.conversationKey))])).map((c) => [c.key, c.conversationId]));
  const views = await deps.reader.renderAcross(app, (c) => owners.get(c.conversationKey) ?? '', items);
  return listPayload('list.comments', 'comments', views, next);
}

/** Approve: the comment becomes visible (moderation approved). Reject: it stays hidden (rejected). */
export async function decide(deps: CommentsDeps, app: Application, commentId: string, approve: boolean): Promise<CommentView> {
  const comment = await findCommentInApp(deps.db, app.id, commentId);
  if (comment === undefined) throw notFound(`Comment ${commentId} not found.`);
  const conversation = await findConversationByKey(deps.db, comment.conversationKey);
  if (conversation === undefined) throw notFound(`Comment ${commentId} not found.`);
  const updated = await settleQueued(deps.db, comment.id, approve, new Date());
  if (updated === undefined) throw badRequest(`The specified comment ${commentId} is not in a moderatable state.`, { commentid: 'is not awaiting moderation' });
  if (approve && comment.moderation === 'pending') {
    // Held by pre-moderation: it is published only now.
    const view = await deps.reader.renderOne(app, conversation, updated);
    const parent = updated.parentId === '' ? undefined : await findCommentInApp(deps.db, app.id, updated.parentId);
    published(deps, app, conversation, updated, view, parent?.userId);
    return view;
  }
  return finish(deps, app, conversation, 'comment.edited', updated, commentId);
}
