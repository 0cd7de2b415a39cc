import type { Application } from '../../apps/types.js';
import { notFound } from '../../errors.js';
import type { NotifyTarget, PublishedEvent, PublishHook, WrittenNotification } from '../../events/publish-hooks.js';
import type { Bus } from '../../realtime/bus.js';
import { publishLive } from '../../realtime/live.js';
import type { Comment, Conversation, LiveType } from '../types.js';
import type { CommentView } from '../views.js';
import type { PageCache } from './page-cache.js';
import type { Reader } from './reading.js';

export interface PublishingDeps {
  bus: Bus;
  cache: PageCache;
  hooks: PublishHook;
  reader: Reader;
}

/** What follows a committed change to a comment: cached pages dropped everywhere, the live push, the publish hooks. */
export class Publishing {
  constructor(private readonly deps: PublishingDeps) {}

  /** After a committed change to a comment: drop cached pages everywhere and push the comment live. */
  announce(app: Application, conversation: Conversation, type: LiveType, view: CommentView): void {
    this.deps.cache.changed(app.id, [conversation.conversationId]);
    publishLive(this.deps.bus, app.id, 'conversation', conversation.conversationId, { type, data: view });
  }

  /** Renders an updated comment and announces it; 404 when it vanished meanwhile. */
  async announceUpdate(app: Application, conversation: Conversation, type: LiveType, updated: Comment | undefined, commentId: string): Promise<CommentView> {
    if (updated === undefined) throw notFound(`Comment ${commentId} not found in conversation ${conversation.conversationId}.`);
    const view = await this.deps.reader.renderOne(app, conversation, updated);
    this.announce(app, conversation, type, view);
    return view;
  }

  /** Before a new comment is stored: the hooks that may refuse it. */
  beforePublish(app: Application, conversation: Conversation, comment: Comment, view: CommentView, parentAuthor: string | undefined): Promise<void> {
    return this.deps.hooks.beforePublish(publishedEvent(app, conversation, comment, view, parentAuthor));
  }

  /** After a comment became visible (at once, or approved from the queue): webhooks and live push. */
  published(app: Application, conversation: Conversation, comment: Comment, view: CommentView, parentAuthor: string | undefined): void {
    this.deps.hooks.afterPublish(publishedEvent(app, conversation, comment, view, parentAuthor));
    this.announce(app, conversation, comment.parentId === '' ? 'comment.created' : 'comment.replied', view);
  }

  /** After a user added a reaction: the commentreaction webhook, and the push of the author's notification its statement wrote (none when they reacted themselves). */
  reacted(app: Application, conversation: Conversation, view: CommentView, userId: string, reaction: string, notice: WrittenNotification | undefined): void {
    this.deps.hooks.afterPublish(reactionEvent(app, conversation, view, userId, `${view.id}:${userId}:${reaction}`, notice === undefined ? [] : [notice]));
  }
}

/**
 * A reaction as webhooks see it; `journalKey` as the journal's trigger on comment_reactions
 * writes it (migration 0003). Its notification is written with the reaction (tally-batch.ts):
 * `notified` is pushed, nothing is left to notify.
 */
export function reactionEvent(app: Application, conversation: Conversation, view: CommentView, userId: string, journalKey: string, notified: WrittenNotification[]): PublishedEvent {
  return {
    notified,
    appId: app.id,
    eventType: 'commentreaction',
    containerTags: conversation.customTags,
    entity: 'comment',
    containerId: conversation.conversationId,
    containerCustomId: conversation.customId,
    payload: view,
    notify: [],
    actorUserId: userId,
    journalKey,
  };
}

/** A comment as webhooks see it: published (top-level) or a reply, with whom to notify. */
export function publishedEvent(app: Application, conversation: Conversation, comment: Comment, view: CommentView, parentAuthor: string | undefined): PublishedEvent {
  const notify: NotifyTarget[] = comment.mentions.map((m) => ({ handle: m.slice(1), type: 'mention' as const }));
  if (parentAuthor !== undefined && parentAuthor !== comment.userId) notify.push({ userid: parentAuthor, type: 'reply' });
  return {
    appId: app.id,
    eventType: comment.parentId === '' ? 'commentpublished' : 'commentreply',
    containerTags: conversation.customTags,
    entity: 'comment',
    containerId: conversation.conversationId,
    containerCustomId: conversation.customId,
    payload: view,
    notify,
    actorUserId: comment.userId,
    journalKey: comment.id,
  };
}
