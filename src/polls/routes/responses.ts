import { assertActingAs, assertModerator } from '../../http/auth.js';
import { listPayload } from '../../http/cursor.js';
import { ok, param, route, type RequestContext, type RouteDef } from '../../http/route.js';
import { AllResponses, type PageRequest, Paging, Vote } from '../schemas.js';
import type { PollStandings } from '../services/poll-standings.js';
import type { ResponseService } from '../services/responses.js';
import type { VoteBatcher } from '../services/votes.js';
import { responseView } from '../views.js';

/** Voting, the standings, and the responses given (one user's, or all of them for moderators). */
export function responseRoutes(standings: PollStandings, responses: ResponseService, votes: VoteBatcher): RouteDef[] {
  const userResponses = async (ctx: RequestContext, userId: string) => {
    assertActingAs(ctx, userId);
    const found = await responses.ofUser(ctx.app, param(ctx.params, 'pollid'), userId);
    return ok(listPayload('list.poll.responses', 'responses', found.map(responseView), ''));
  };
  const allResponses = async (ctx: RequestContext, page: PageRequest) => {
    assertModerator(ctx);
    const { items, next } = await responses.all(ctx.app, param(ctx.params, 'pollid'), page);
    return ok(listPayload('list.poll.responses', 'responses', items.map(responseView), next));
  };

  return [
    route({
      method: 'POST',
      path: 'poll/poll/:pollid/response',
      limit: 'votes',
      body: Vote,
      handler: async (ctx) => {
        assertActingAs(ctx, ctx.body.userid);
        const outcome = await votes.submit({ appId: ctx.app.id, pollId: param(ctx.params, 'pollid'), choiceId: ctx.body.choiceid, userId: ctx.body.userid });
        if (!outcome.ok) throw outcome.error;
        return ok(responseView(outcome.response), 'Response recorded.');
      },
    }),
    route({
      method: 'GET',
      path: 'poll/poll/:pollid/standings',
      handler: async (ctx) => ({ data: null, shared: await standings.answer(ctx.app, param(ctx.params, 'pollid'), performance.now()) }),
    }),
    route({
      method: 'GET',
      path: 'poll/poll/:pollid/responses/user/:userid',
      access: 'user',
      handler: async (ctx) => userResponses(ctx, param(ctx.params, 'userid')),
    }),
    route({
      method: 'GET',
      path: 'poll/poll/:pollid/responses',
      access: 'user',
      query: Paging,
      handler: async (ctx) => allResponses(ctx, ctx.query),
    }),
    // The SDKs' path: a user's responses with UserId, else all of them.
    route({
      method: 'GET',
      path: 'poll/poll/:pollid/responses/all',
      access: 'user',
      query: AllResponses,
      handler: async (ctx) => (ctx.query.userid === undefined ? allResponses(ctx, ctx.query) : userResponses(ctx, ctx.query.userid)),
    }),
  ];
}
