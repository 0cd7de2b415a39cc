import type { Application } from '../../apps/types.js';
import type { Db } from '../../db/client.js';
import { badRequest, notFound } from '../../errors.js';
import { decodeCursor, listPayload, pageOf } from '../../http/cursor.js';
import { findCommentInApp, settleQueued } from '../store/comments.js';
import { findConversationByKey, findConversationsByKeys } from '../store/conversations.js';
import { readQueue } from '../store/pages.js';
import type { CommentView } from '../views.js';
import type { Conversations } from './conversations.js';
import type { Publishing } from './publishing.js';
import type { Reader } from './reading.js';
import { isTimeKey, timeKeyOf } from './time-key.js';

export interface CommentModerationDeps {
  db: Db;
  conversations: Conversations;
  reader: Reader;
  publishing: Publishing;
}

/** The moderation queue of comments and the decisions on it. */
export class CommentModeration {
  constructor(private readonly deps: CommentModerationDeps) {}

  /** Comments awaiting a moderator: held by pre-moderation or flagged by reports. */
  async queue(app: Application, conversationId: string, cursor: string, limit: number): Promise<unknown> {
    const { db, conversations, reader } = this.deps;
    const conversation = conversationId === '' ? undefined : await conversations.require(app, conversationId);
    const after = cursor === '' ? undefined : decodeCursor(cursor, isTimeKey);
    const rows = await readQueue(db, app.id, conversation?.key, after, limit + 1);
    const { items, next } = pageOf(rows, limit, timeKeyOf);
    // A page may span conversations: each comment needs its own conversationid.
    const owners = new Map((await findConversationsByKeys(db, [...new Set(items.map((c) => c.conversationKey))])).map((c) => [c.key, c.conversationId]));
    const views = await reader.renderAcross(app, (c) => owners.get(c.conversationKey) ?? '', items);
    return listPayload('list.comments', 'comments', views, next);
  }

  /** Approve: the comment becomes visible (moderation approved). Reject: it stays hidden (rejected). */
  async decide(app: Application, commentId: string, approve: boolean): Promise<CommentView> {
    const { db, reader, publishing } = this.deps;
    const comment = await findCommentInApp(db, app.id, commentId);
    if (comment === undefined) throw notFound(`Comment ${commentId} not found.`);
    const conversation = await findConversationByKey(db, comment.conversationKey);
    if (conversation === undefined) throw notFound(`Comment ${commentId} not found.`);
    const updated = await settleQueued(db, comment.id, approve, new Date());
    if (updated === undefined) throw badRequest(`The specified comment ${commentId} is not in a moderatable state.`, { commentid: 'is not awaiting moderation' });
    if (approve && comment.moderation === 'pending') {
      // Held by pre-moderation: it is published only now.
      const view = await reader.renderOne(app, conversation, updated);
      const parent = updated.parentId === '' ? undefined : await findCommentInApp(db, app.id, updated.parentId);
      publishing.published(app, conversation, updated, view, parent?.userId);
      return view;
    }
    return publishing.announceUpdate(app, conversation, 'comment.edited', updated, commentId);
  }
}
