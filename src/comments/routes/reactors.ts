import { ok, param, route, type RequestContext, type RouteDef } from '../../http/route.js';
import { ReactionUsers, VoteUsers } from '../schemas.js';
import type { Reactors } from '../services/reactors.js';

const COMMENT = 'comment/conversations/:conversationid/comments/:commentid';
const conversationId = (ctx: RequestContext) => param(ctx.params, 'conversationid');
const commentId = (ctx: RequestContext) => param(ctx.params, 'commentid');

/** The full, paged lists of who reacted or voted (answers and pushes list only the latest REACTION_USERS_SHOWN). */
export function reactorRoutes(reactors: Reactors): RouteDef[] {
  return [
    route({
      method: 'GET',
      path: `${COMMENT}/reactions`,
      query: ReactionUsers,
      handler: async (ctx) => ok(await reactors.ofComment(ctx.app, conversationId(ctx), commentId(ctx), 'reactions', { ...ctx.query, type: ctx.query.reaction })),
    }),
    route({
      method: 'GET',
      path: `${COMMENT}/votes`,
      query: VoteUsers,
      handler: async (ctx) => ok(await reactors.ofComment(ctx.app, conversationId(ctx), commentId(ctx), 'votes', { ...ctx.query, type: ctx.query.vote })),
    }),
    route({
      method: 'GET',
      path: 'comment/conversations/:conversationid/reactions',
      query: ReactionUsers,
      handler: async (ctx) => ok(await reactors.ofConversation(ctx.app, conversationId(ctx), { ...ctx.query, type: ctx.query.reaction })),
    }),
  ];
}
