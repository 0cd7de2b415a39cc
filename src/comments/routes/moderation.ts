import { assertModerator } from '../../http/auth.js';
import { ok, param, route, type RouteDef } from '../../http/route.js';
import { Decision, ModerationQueue } from '../schemas.js';
import type { CommentModeration } from '../services/moderation.js';

/** The moderation queue of comments: held by pre-moderation or flagged by reports. */
export function moderationRoutes(moderation: CommentModeration): RouteDef[] {
  return [
    route({
      method: 'GET',
      path: 'comment/moderation/queues/comments',
      access: 'user',
      query: ModerationQueue,
      handler: async (ctx) => {
        assertModerator(ctx);
        return ok(await moderation.queue(ctx.app, ctx.query.conversationid, ctx.query.cursor, ctx.query.limit));
      },
    }),
    route({
      method: 'POST',
      path: 'comment/moderation/queues/comments/:commentid/applydecision',
      limit: 'moderation',
      body: Decision,
      handler: async (ctx) => {
        assertModerator(ctx);
        const view = await moderation.decide(ctx.app, param(ctx.params, 'commentid'), ctx.body.approve);
        return ok(view, ctx.body.approve ? 'Comment approved.' : 'Comment rejected.');
      },
    }),
  ];
}
