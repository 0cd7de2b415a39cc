import type { Application } from '../apps/types.js';
import type { Db } from '../db/client.js';
import type { PublishHooks, PublishedEvent, NotifyTarget } from '../events/publish-hooks.js';
import type { Bus } from '../realtime/bus.js';
import { publishLive } from '../realtime/live.js';
import type { UserService } from '../users/service.js';
import type { CommentWriter } from './services/comment-writer.js';
import type { Conversations } from './services/conversations.js';
import type { PageCache } from './services/page-cache.js';
import type { Reader } from './services/reading.js';
import type { Comment, CommentView, Conversation } from './views.js';

/** What the comment services share. */
export interface CommentsDeps {
  db: Db;
  bus: Bus;
  users: UserService;
  hooks: PublishHooks;
  cache: PageCache;
  conversations: Conversations;
  reader: Reader;
  writer: CommentWriter;
}

export type LiveType = 'comment.created' | 'comment.replied' | 'comment.edited' | 'comment.deleted' | 'comment.voted' | 'comment.reacted';

/** After a committed change to a comment: drop cached pages everywhere and push the comment live. */
export function announce(deps: CommentsDeps, app: Application, conversation: Conversation, type: LiveType, view: CommentView): void {
  deps.cache.changed(app.id, [conversation.conversationId]);
  publishLive(deps.bus, app.id, 'conversation', conversation.conversationId, { type, data: view });
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
  };
}
