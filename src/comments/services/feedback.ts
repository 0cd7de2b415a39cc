import type { Application } from '../../apps/types.js';
import type { Db, Tx } from '../../db/client.js';
import type { UserService } from '../../users/service.js';
import type { VoteValue } from '../schemas.js';
import { insertReport, lockComment, retally, setReaction, setVote, updateComment } from '../store/comments.js';
import { keepingEmptied } from '../store/tally.js';
import type { Comment, Conversation, LiveType } from '../types.js';
import type { CommentView } from '../views.js';
import type { Conversations } from './conversations.js';
import type { Publishing } from './publishing.js';

export interface FeedbackDeps {
  db: Db;
  users: Pick<UserService, 'require'>;
  conversations: Conversations;
  publishing: Publishing;
}

/** Votes, reactions and reports on comments. */
export class Feedback {
  constructor(private readonly deps: FeedbackDeps) {}

  /** One user's vote: up, down, or none/'' to take it back. */
  async vote(app: Application, conversationId: string, commentId: string, userId: string, value: VoteValue): Promise<CommentView> {
    const { view } = await this.change(app, conversationId, commentId, userId, 'comment.voted', async (tx, c) => {
      await setVote(tx, c.id, userId, value === 'up' || value === 'down' ? value : undefined);
      return retally(tx, c.id, 'votes');
    });
    return view;
  }

  /** Adds (reacted true) or removes one user's reaction. */
  async react(app: Application, conversationId: string, commentId: string, userId: string, reaction: string, reacted: boolean): Promise<CommentView> {
    let added = false;
    const { conversation, view } = await this.change(app, conversationId, commentId, userId, 'comment.reacted', async (tx, c) => {
      added = (await setReaction(tx, c.id, userId, reaction, reacted)) && reacted;
      const recounted = await retally(tx, c.id, 'reactions');
      const kept = recounted === undefined ? undefined : keepingEmptied(c.reactions, recounted.reactions);
      return kept === undefined ? recounted : updateComment(tx, c.id, { reactions: kept });
    });
    if (added) this.deps.publishing.reacted(app, conversation, view, userId, reaction);
    return view;
  }

  /**
   * Records one report per user; when the reports reach the conversation's maxreports (the first
   * one when it is 0) an unmoderated comment goes inactive, flagged, into the moderation queue.
   */
  async report(app: Application, conversationId: string, commentId: string, userId: string, reportType: string): Promise<{ view: CommentView; recorded: boolean }> {
    let recorded = false;
    const { view } = await this.change(app, conversationId, commentId, userId, 'comment.edited', async (tx, c, maxReports) => {
      recorded = await insertReport(tx, c.id, userId, reportType);
      if (!recorded) return c;
      const updated = await retally(tx, c.id, 'reports');
      if (updated === undefined || updated.moderation !== 'na' || updated.reports.length < maxReports) return updated;
      return updateComment(tx, c.id, { moderation: 'flagged', active: false, modified: new Date() });
    });
    return { view, recorded };
  }

  /** Runs a change under the comment's row lock (concurrent changes to one comment apply one at a time), then renders and announces. */
  private async change(
    app: Application,
    conversationId: string,
    commentId: string,
    userId: string,
    type: LiveType,
    apply: (tx: Tx, locked: Comment, maxReports: number) => Promise<Comment | undefined>,
  ): Promise<{ conversation: Conversation; view: CommentView }> {
    const conversation = await this.deps.conversations.require(app, conversationId);
    await this.deps.users.require(app, userId);
    const updated = await this.deps.db.transaction(async (tx) => {
      const locked = await lockComment(tx, conversation.key, commentId);
      return locked === undefined ? undefined : apply(tx, locked, conversation.maxReports);
    });
    return { conversation, view: await this.deps.publishing.announceUpdate(app, conversation, type, updated, commentId) };
  }
}
