import { badRequest } from '../../errors.js';
import { assertActingAs, assertOwnerOrModerator, ownerFor } from '../../http/auth.js';
import { ok, param, route, type RequestContext, type RouteDef } from '../../http/route.js';
import { ConversationDetails, FindByCustomId, ListConversations, React, UpsertConversation } from '../schemas.js';
import type { Conversations } from '../services/conversations.js';
import type { Conversation } from '../types.js';
import { conversationView } from '../views.js';

const OPTIONAL_ENTITIES = ['reactions', 'likecount', 'commentcount'] as const;

/** A user token may change, reset or delete only a conversation it owns, unless it is a moderator's. */
const assertMayManage = (ctx: RequestContext, conversation: Conversation) => assertOwnerOrModerator(ctx, conversation.ownerUserId, 'conversation');

export function conversationRoutes(conversations: Conversations): RouteDef[] {
  return [
    route({
      method: 'POST',
      path: 'comment/conversations',
      limit: 'rooms',
      body: UpsertConversation,
      handler: async (ctx) => {
        const owneruserid = ownerFor(ctx, ctx.body.owneruserid, 'owneruserid', true);
        const { conversation, created } = await conversations.upsert(ctx.app, { ...ctx.body, owneruserid }, (existing) => assertMayManage(ctx, existing));
        return ok(conversationView(conversation), created ? 'Inserted' : 'Updated');
      },
    }),
    route({
      method: 'GET',
      path: 'comment/conversations',
      query: ListConversations,
      handler: async (ctx) => ok(await conversations.list(ctx.app, ctx.query.propertyid || undefined, ctx.query.cursor, ctx.query.limit)),
    }),
    route({
      method: 'GET',
      path: 'comment/conversations/:conversationid',
      handler: async (ctx) => ok(conversationView(await conversations.require(ctx.app, param(ctx.params, 'conversationid')))),
    }),
    route({
      method: 'GET',
      path: 'comment/find/conversation/bycustomid',
      query: FindByCustomId,
      handler: async (ctx) => ok(conversationView(await conversations.requireByCustomId(ctx.app, ctx.query.customid))),
    }),
    route({
      method: 'GET',
      path: 'comment/conversations/details/batch',
      query: ConversationDetails,
      handler: async (ctx) => {
        const { ids, cid, entities } = ctx.query;
        if (ids.length === 0 && cid.length === 0) throw badRequest('You must specify at least one ids or cid.', { ids: 'give at least one conversationid (ids) or customid (cid)' });
        const wanted = new Set(entities.map((e) => e.toLowerCase()));
        const found = await conversations.findMany(ctx.app, ids, cid);
        const details = found.map((c) => {
          const view: Partial<ReturnType<typeof conversationView>> = conversationView(c);
          // Without `entities` everything is returned; with it, only the named optional parts.
          if (wanted.size > 0) for (const entity of OPTIONAL_ENTITIES) if (!wanted.has(entity)) delete view[entity];
          return view;
        });
        return ok({ kind: 'list.comment.conversation.details', itemcount: details.length, conversations: details });
      },
    }),
    route({
      method: 'POST',
      path: 'comment/conversations/:conversationid/react',
      limit: 'votes',
      body: React,
      handler: async (ctx) => {
        assertActingAs(ctx, ctx.body.userid);
        const conversation = await conversations.react(ctx.app, param(ctx.params, 'conversationid'), ctx.body.userid, ctx.body.reaction, ctx.body.reacted);
        return ok(conversationView(conversation));
      },
    }),
    route({
      method: 'POST',
      path: 'comment/conversations/:conversationid/reset',
      limit: 'moderation',
      handler: async (ctx) => {
        const conversation = await conversations.require(ctx.app, param(ctx.params, 'conversationid'));
        assertMayManage(ctx, conversation);
        return ok(deleted(conversation, ctx, 0, await conversations.reset(ctx.app, conversation)), 'Conversation reset.');
      },
    }),
    route({
      method: 'DELETE',
      path: 'comment/conversations/:conversationid',
      limit: 'moderation',
      handler: async (ctx) => {
        const conversation = await conversations.require(ctx.app, param(ctx.params, 'conversationid'));
        assertMayManage(ctx, conversation);
        return ok(deleted(conversation, ctx, 1, await conversations.remove(ctx.app, conversation)), 'Conversation deleted.');
      },
    }),
  ];
}

function deleted(conversation: Conversation, ctx: RequestContext, conversationsRemoved: number, commentsRemoved: number) {
  return {
    kind: 'delete.conversation',
    conversationid: conversation.conversationId,
    userid: ctx.actor?.userid ?? null,
    deletedconversations: conversationsRemoved,
    deletedcomments: commentsRemoved,
  };
}
