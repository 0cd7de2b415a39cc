import type { Application } from '../../apps/types.js';
import type { Db } from '../../db/client.js';
import type { JournalSource } from '../../events/journal-sources.js';
import type { PublishedEvent } from '../../events/publish-hooks.js';
import { findCommentInApp } from '../store/comments.js';
import { findConversationByKey } from '../store/conversations.js';
import type { Comment, Conversation } from '../types.js';
import type { CommentView } from '../views.js';
import { publishedEvent, reactionEvent } from './publishing.js';
import type { Reader } from './reading.js';

export interface CommentJournalDeps {
  db: Db;
  reader: Pick<Reader, 'renderOne'>;
}

interface Found {
  app: Application;
  conversation: Conversation;
  comment: Comment;
  view: CommentView;
}

/**
 * Published comments and reactions rebuilt from their journal keys (see JournalSources), with
 * the comment as it is now. Rare (what a crash or an outage left), so one comment at a time.
 */
export function commentJournalSources({ db, reader }: CommentJournalDeps): { comment: JournalSource; commentreaction: JournalSource } {
  const rebuild =
    (commentIdOf: (key: string) => string, event: (found: Found, key: string) => PublishedEvent): JournalSource =>
    async (app, keys) => {
      const events: PublishedEvent[] = [];
      for (const key of keys) {
        const comment = await findCommentInApp(db, app.id, commentIdOf(key));
        const conversation = comment === undefined ? undefined : await findConversationByKey(db, comment.conversationKey);
        if (comment === undefined || conversation === undefined) continue;
        events.push(event({ app, conversation, comment, view: await reader.renderOne(app, conversation, comment) }, key));
      }
      return events;
    };
  return {
    comment: rebuild(
      (key) => key,
      (f) => publishedEvent(f.app, f.conversation, f.comment, f.view, undefined),
    ),
    // The key is `{comment id}:{user id}:{reaction}`; who reacted only matters to notifications, which commit with the reaction.
    commentreaction: rebuild(
      (key) => key.slice(0, key.indexOf(':')),
      (f, key) => reactionEvent(f.app, f.conversation, f.view, '', key, []),
    ),
  };
}
