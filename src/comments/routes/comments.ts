import { notFound } from '../../errors.js';
import { assertActingAs, mayActFor, roleIfTrusted } from '../../http/auth.js';
import { ok, param, route, type Reply, type RequestContext, type RouteDef } from '../../http/route.js';
import { CreateComment, DeleteComment, EditComment, ListComments, ListReplies, React, RepliesBatch, ReportComment, SetDeleted, Vote, type CreateCommentInput } from '../schemas.js';
import type { Changes, DeleteResult } from '../services/changes.js';
import type { Feedback } from '../services/feedback.js';
import type { Posting } from '../services/posting.js';
import type { Reader } from '../services/reading.js';
import { isHeld } from '../types.js';
import type { CommentView } from '../views.js';

const COMMENT = 'comment/conversations/:conversationid/comments/:commentid';
const conversationId = (ctx: RequestContext) => param(ctx.params, 'conversationid');
const commentId = (ctx: RequestContext) => param(ctx.params, 'commentid');

/** 204 without a body when the profanity filter (block mode) refused the text. */
const viewOrBlocked = (result: CommentView | 'blocked'): Reply => (result === 'blocked' ? { data: null, message: 'Blocked by the profanity filter.', status: 204 } : ok(result));
const deleteResult = (result: DeleteResult, message: string): Reply => ok({ kind: 'delete.comment', ...result }, message);

export interface CommentServices {
  reader: Reader;
  posting: Posting;
  changes: Changes;
  feedback: Feedback;
}

export function commentRoutes({ reader, posting, changes, feedback }: CommentServices): RouteDef[] {
  const create = async (ctx: RequestContext<CreateCommentInput>, parent: string | undefined) => {
    assertActingAs(ctx, ctx.body.userid);
    return viewOrBlocked(await posting.create(ctx.app, conversationId(ctx), { ...ctx.body, role: roleIfTrusted(ctx, ctx.body.role) }, parent));
  };
  return [
    route({ method: 'POST', path: 'comment/conversations/:conversationid/comments', limit: 'comments', body: CreateComment, handler: (ctx) => create(ctx, undefined) }),
    route({ method: 'POST', path: COMMENT, limit: 'comments', body: CreateComment, handler: (ctx) => create(ctx, commentId(ctx)) }),
    route({
      method: 'GET',
      path: 'comment/conversations/:conversationid/comments',
      query: ListComments,
      handler: async (ctx): Promise<Reply> => {
        const page = await reader.listJson(ctx.app, conversationId(ctx), ctx.query);
        return page.shared ? { data: null, shared: page.json } : { data: null, json: [page.json] };
      },
    }),
    route({
      method: 'GET',
      path: COMMENT,
      handler: async (ctx) => {
        const { comment, view } = await reader.one(ctx.app, conversationId(ctx), commentId(ctx));
        // Held back by moderation, it is its author's and the moderators' to read; to anyone else it does not exist, as in every list.
        if (isHeld(comment) && !mayActFor(ctx, comment.userId)) throw notFound(`Comment ${comment.id} not found in conversation ${conversationId(ctx)}.`);
        return ok(view);
      },
    }),
    route({
      method: 'GET',
      path: `${COMMENT}/replies`,
      query: ListReplies,
      handler: async (ctx) => ok(await reader.replies(ctx.app, conversationId(ctx), commentId(ctx), ctx.query)),
    }),
    route({
      method: 'GET',
      path: 'comment/conversations/:conversationid/repliesbyparentidbatch',
      query: RepliesBatch,
      handler: async (ctx) => ok(await reader.firstReplies(ctx.app, conversationId(ctx), ctx.query.parentids, ctx.query.childlimit, ctx.query.includeinactive)),
    }),
    route({
      method: 'PUT',
      path: COMMENT,
      limit: 'comments',
      body: EditComment,
      handler: async (ctx) => {
        assertActingAs(ctx, ctx.body.userid);
        return viewOrBlocked(await changes.edit(ctx.app, conversationId(ctx), commentId(ctx), ctx.body.userid, ctx.body.body));
      },
    }),
    route({
      method: 'PUT',
      path: `${COMMENT}/setdeleted`,
      limit: 'comments',
      query: SetDeleted,
      handler: async (ctx) => {
        assertActingAs(ctx, ctx.query.userid);
        const result = await changes.setDeleted(ctx.app, conversationId(ctx), commentId(ctx), ctx.query.userid, ctx.query.deleted, ctx.query.permanentifnoreplies);
        return deleteResult(result, result.permanentdelete ? 'The comment was permanently deleted.' : 'The deleted flag of the comment was updated.');
      },
    }),
    route({
      method: 'DELETE',
      path: COMMENT,
      limit: 'comments',
      query: DeleteComment,
      handler: async (ctx) => {
        if (ctx.query.userid !== undefined) assertActingAs(ctx, ctx.query.userid);
        const result = await changes.deletePermanently(ctx.app, conversationId(ctx), commentId(ctx), ctx.query.userid ?? ctx.actor?.userid);
        return deleteResult(result, 'The comment was permanently deleted.');
      },
    }),
    route({
      method: 'POST',
      path: `${COMMENT}/vote`,
      limit: 'votes',
      body: Vote,
      handler: async (ctx) => {
        assertActingAs(ctx, ctx.body.userid);
        return ok(await feedback.vote(ctx.app, conversationId(ctx), commentId(ctx), ctx.body.userid, ctx.body.vote));
      },
    }),
    route({
      method: 'POST',
      path: `${COMMENT}/react`,
      limit: 'votes',
      body: React,
      handler: async (ctx) => {
        assertActingAs(ctx, ctx.body.userid);
        return ok(await feedback.react(ctx.app, conversationId(ctx), commentId(ctx), ctx.body.userid, ctx.body.reaction, ctx.body.reacted));
      },
    }),
    route({
      method: 'POST',
      path: `${COMMENT}/report`,
      limit: 'reports',
      body: ReportComment,
      handler: async (ctx) => {
        assertActingAs(ctx, ctx.body.userid);
        const { view, recorded } = await feedback.report(ctx.app, conversationId(ctx), commentId(ctx), ctx.body.userid, ctx.body.reporttype);
        return ok(view, recorded ? 'Comment reported.' : 'This user had already reported the comment.');
      },
    }),
  ];
}
