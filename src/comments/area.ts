import type { Area, Core } from '../core.js';
import { assertModerator } from '../http/auth.js';
import { ok, param, route } from '../http/route.js';
import { purgeUser } from './services/changes.js';
import { CommentWriter } from './services/comment-writer.js';
import { Conversations } from './services/conversations.js';
import type { CommentsDeps } from './deps.js';
import { decide, queue } from './services/moderation.js';
import { PageCache } from './services/page-cache.js';
import { Reader } from './services/reading.js';
import { commentRoutes } from './routes/comments.js';
import { conversationRoutes } from './routes/conversations.js';
import { Decision, ModerationQueue } from './schemas.js';

/** Comment conversations, comments and replies, votes, reactions, reports and their moderation queue. */
export function commentsArea(core: Core): Area {
  const cache = new PageCache(core.bus);
  const conversations = new Conversations(core.db, cache);
  const reader = new Reader(core.db, core.users, cache, conversations);
  const writer = new CommentWriter(core.db, core.log);
  const deps: CommentsDeps = { db: core.db, bus: core.bus, users: core.users, hooks: core.hooks, cache, conversations, reader, writer };
  core.topics.register('conversation', {
    doc: {
      events: ['comment.created', 'comment.replied', 'comment.edited', 'comment.deleted', 'comment.voted', 'comment.reacted'],
      who: 'anyone with the app token; data is the comment.comment',
    },
  });
  core.users.onPurge(async (app, userId) => {
    await purgeUser(deps, app, userId);
  });
  return {
    routes: [
      ...conversationRoutes(deps),
      ...commentRoutes(deps),
      route({
        method: 'GET',
        path: 'comment/moderation/queues/comments',
        access: 'user',
        query: ModerationQueue,
        handler: async (ctx) => {
          assertModerator(ctx);
          return ok(await queue(deps, ctx.app, ctx.query.conversationid, ctx.query.cursor, ctx.query.limit));
        },
      }),
      route({
        method: 'POST',
        path: 'comment/moderation/queues/comments/:commentid/applydecision',
        body: Decision,
        handler: async (ctx) => {
          assertModerator(ctx);
          const view = await decide(deps, ctx.app, param(ctx.params, 'commentid'), ctx.body.approve);
          return ok(view, ctx.body.approve ? 'Comment approved.' : 'Comment rejected.');
        },
      }),
    ],
  };
}
