import type { Application } from '../../apps/types.js';
import type { Db, Tx } from '../../db/client.js';
import type { UserService } from '../../users/service.js';
import type { VoteValue } from '../schemas.js';
import { insertReport, lockComment, retallyReports, updateComment } from '../store/comments.js';
import type { Comment, CommentIn, Conversation, LiveType } from '../types.js';
import { entryOf, type CommentView } from '../views.js';
import type { Conversations } from './conversations.js';
import type { Publishing } from './publishing.js';
import { withOwn } from './tally-change.js';
import type { TallyWriter } from './tally-writer.js';

export interface FeedbackDeps {
  db: Db;
  users: Pick<UserService, 'require'>;
  conversations: Conversations;
  publishing: Publishing;
  tallies: TallyWriter;
}

/** Votes, reactions and reports on comments. Votes and reactions are group-committed (TallyWriter). */
export class Feedback {
  private readonly batchViews = new WeakMap<Comment, Promise<CommentView>>();

  constructor(private readonly deps: FeedbackDeps) {}

  /** One user's vote: up, down, or none/'' to take it back. */
  async vote(app: Application, conversationId: string, commentId: string, userId: string, value: VoteValue): Promise<CommentView> {
    const user = await this.deps.users.require(app, userId);
    const done = await this.deps.tallies.vote(app.id, conversationId, commentId, { userId, vote: value === 'up' || value === 'down' ? value : '' });
    const view = await this.announced(app, conversationId, commentId, 'comment.voted', done.row);
    return { ...view, votes: withOwn(view.votes, done.own, entryOf(user), (u) => u.userid === userId) };
  }

  /** Adds (reacted true) or removes one user's reaction. */
  async react(app: Application, conversationId: string, commentId: string, userId: string, reaction: string, reacted: boolean): Promise<CommentView> {
    const user = await this.deps.users.require(app, userId);
    const done = await this.deps.tallies.reactToComment(app.id, conversationId, commentId, { userId, type: reaction, on: reacted });
    const view = await this.announced(app, conversationId, commentId, 'comment.reacted', done.row);
    if (done.added && done.row !== undefined) this.deps.publishing.reacted(app, done.row.conversation, view, userId, reaction, done.notice);
    return { ...view, reactions: withOwn(view.reactions, done.own, entryOf(user), (u) => u.userid === userId) };
  }

  /**
   * The comment after a batch, rendered and announced once for all the batch's requests (they
   * share the row object): the page caches are dropped and subscribers get one push per batch.
   * 404 naming the conversation or the comment when the batch found no such comment.
   */
  private async announced(app: Application, conversationId: string, commentId: string, type: LiveType, row: CommentIn | undefined): Promise<CommentView> {
    if (row === undefined) {
      const conversation = await this.deps.conversations.require(app, conversationId);
      return this.deps.publishing.announceUpdate(app, conversation, type, undefined, commentId);
    }
    let view = this.batchViews.get(row.comment);
    if (view === undefined) {
      view = this.deps.publishing.announceUpdate(app, row.conversation, type, row.comment, commentId);
      this.batchViews.set(row.comment, view);
    }
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
      const updated = await retallyReports(tx, c.id);
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
