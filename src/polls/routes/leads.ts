import { assertActingAs, assertModerator } from '../../http/auth.js';
import { listPayload } from '../../http/cursor.js';
import { ok, param, route, type RouteDef } from '../../http/route.js';
import { AddLead, Paging } from '../schemas.js';
import type { ResponseService } from '../services/responses.js';
import { leadView } from '../views.js';

/** Leads a poll collects: anyone may leave one, moderators list them. */
export function leadRoutes(responses: ResponseService): RouteDef[] {
  return [
    route({
      method: 'POST',
      path: 'poll/poll/:pollid/lead',
      limit: 'polls',
      body: AddLead,
      handler: async (ctx) => {
        if (ctx.body.userid !== undefined) assertActingAs(ctx, ctx.body.userid);
        return ok(leadView(await responses.addLead(ctx.app, param(ctx.params, 'pollid'), ctx.body)), 'Lead recorded.');
      },
    }),
    route({
      method: 'GET',
      path: 'poll/poll/:pollid/leads',
      access: 'user',
      query: Paging,
      handler: async (ctx) => {
        assertModerator(ctx);
        const { items, next } = await responses.leads(ctx.app, param(ctx.params, 'pollid'), ctx.query);
        return ok(listPayload('list.poll.leads', 'leads', items.map(leadView), next));
      },
    }),
  ];
}
