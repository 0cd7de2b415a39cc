import type { Area, Core } from '../core.js';
import { commentRoutes } from './routes/comments.js';
import { conversationRoutes } from './routes/conversations.js';
import { moderationRoutes } from './routes/moderation.js';
import { reactorRoutes } from './routes/reactors.js';
import { Changes } from './services/changes.js';
import { CommentWriter } from './services/comment-writer.js';
import { Conversations } from './services/conversations.js';
import { Feedback } from './services/feedback.js';
import { commentItemSource } from './services/item-source.js';
import { commentJournalSources } from './services/journal-sources.js';
import { CommentModeration } from './services/moderation.js';
import { PageCache } from './services/page-cache.js';
import { PageReads } from './services/page-reads.js';
import { Posting } from './services/posting.js';
import { Publishing } from './services/publishing.js';
import { Reactors } from './services/reactors.js';
import { Reader } from './services/reading.js';
import { StoredPages } from './services/stored-pages.js';
import { TallyWriter } from './services/tally-writer.js';
import { COMMENT_SHAPE } from './views.js';

/** Comment conversations, comments and replies, votes, reactions, reports and their moderation queue. */
export function commentsArea(core: Core): Area {
  const { db, bus, users, hooks, log } = core;
  const cache = new PageCache(bus, core.config.crowdReadsCacheBytes);
  const tallies = new TallyWriter({ db, log, shown: core.config.reactionUsersShown, maxTypes: core.config.reactionTypesMax });
  const conversations = new Conversations({ db, log, bus, cache, users, tallies });
  const stored = new StoredPages(db, log, core.config.storedCommentPageMax);
  const reader = new Reader({ db, pages: new PageReads(db, log), users, cache, stored, conversations });
  const publishing = new Publishing({ bus, cache, hooks, reader });
  const writer = new CommentWriter({ db, log });
  const posting = new Posting({ db, users, cache, conversations, reader, writer, publishing });
  const changes = new Changes({ db, users, cache, reader, publishing });
  const feedback = new Feedback({ db, users, conversations, publishing, tallies });
  const reactors = new Reactors({ db, users, conversations, reader });
  const moderation = new CommentModeration({ db, conversations, reader, publishing });
  const journal = commentJournalSources({ db, reader });
  hooks.journal.add('comment', journal.comment);
  hooks.journal.add('commentreaction', journal.commentreaction);
  hooks.items.add('comment', commentItemSource({ db, reader }));
  core.shapes.register('comment.comment', COMMENT_SHAPE);
  core.topics.register('conversation', {
    carries: { kind: 'comment.comment' },
    doc: {
      events: ['comment.created', 'comment.replied', 'comment.edited', 'comment.deleted', 'comment.voted', 'comment.reacted'],
      who: 'anyone with the app token; data is the comment.comment',
    },
  });
  core.users.onPurge(async (app, userId) => {
    await changes.purgeUser(app, userId);
  });
  return {
    routes: [...conversationRoutes(conversations), ...commentRoutes({ reader, posting, changes, feedback }), ...moderationRoutes(moderation), ...reactorRoutes(reactors)],
  };
}
