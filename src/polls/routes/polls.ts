import { assertModerator } from '../../http/auth.js';
import { listPayload } from '../../http/cursor.js';
import { ok, param, route, type RouteDef } from '../../http/route.js';
import { CreatePoll, ListPolls, UpdatePoll } from '../schemas.js';
import type { PollService } from '../services/polls.js';
import type { Poll } from '../types.js';
import { pollView } from '../views.js';

/** Polls: create, update, read (by id or customid), list, delete, reset. */
export function pollRoutes(polls: PollService): RouteDef[] {
  const withChoices = async (poll: Poll) => pollView(poll, await polls.choicesOf(poll));
  return [
    route({
      method: 'POST',
      path: 'poll/poll/create',
      limit: 'polls',
      body: CreatePoll,
      handler: async (ctx) => {
        assertModerator(ctx);
        return ok(pollView(await polls.create(ctx.app, ctx.body), []), 'Poll created.');
      },
    }),
    route({
      method: 'PUT',
      path: 'poll/poll/:pollid/update',
      limit: 'polls',
      body: UpdatePoll,
      handler: async (ctx) => {
        assertModerator(ctx);
        return ok(await withChoices(await polls.update(ctx.app, param(ctx.params, 'pollid'), ctx.body)), 'Poll updated.');
      },
    }),
    route({
      method: 'GET',
      path: 'poll/poll/:pollid',
      handler: async (ctx) => {
        const { poll, choices } = await polls.requireWithChoices(ctx.app, param(ctx.params, 'pollid'));
        return ok(pollView(poll, choices));
      },
    }),
    route({
      method: 'GET',
      path: 'poll/pollbycustomid/:customid',
      handler: async (ctx) => ok(await withChoices(await polls.requireByCustomId(ctx.app, param(ctx.params, 'customid')))),
    }),
    route({
      method: 'GET',
      path: 'poll/poll',
      query: ListPolls,
      handler: async (ctx) => {
        // Unpublished polls are drafts: listing them is for moderators.
        if (ctx.query.includeunpublished) assertModerator(ctx);
        const { items, next } = await polls.list(ctx.app, ctx.query.includeunpublished, ctx.query);
        return ok(
          listPayload(
            'list.polls',
            'polls',
            items.map(({ poll, choices }) => pollView(poll, choices)),
            next,
          ),
        );
      },
    }),
    route({
      method: 'DELETE',
      path: 'poll/poll/:pollid',
      limit: 'polls',
      handler: async (ctx) => {
        assertModerator(ctx);
        const { poll, choices } = await polls.delete(ctx.app, param(ctx.params, 'pollid'));
        return ok({ kind: 'deleted.poll', poll: pollView(poll, choices) }, 'Poll deleted.');
      },
    }),
    route({
      method: 'PUT',
      path: 'poll/poll/:pollid/reset',
      limit: 'polls',
      handler: async (ctx) => {
        assertModerator(ctx);
        const { poll, removed } = await polls.reset(ctx.app, param(ctx.params, 'pollid'));
        return ok({ kind: 'poll.reset', deletedresponses: removed, poll: await withChoices(poll) }, 'Poll responses removed.');
      },
    }),
  ];
}
