import type { Application } from '../apps/types.js';
import type { Area, Core } from '../core.js';
import { assertActingAs, assertModerator } from '../http/auth.js';
import { listPayload, pageOf, stringCursor } from '../http/cursor.js';
import { ok, param, route, type RequestContext } from '../http/route.js';
import { validate } from '../http/validation.js';
import { newId } from '../ids.js';
import { StandingsPush } from './live.js';
import { AddChoicesBody, AddLead, AllResponses, CreatePoll, ListChoices, ListPolls, ManyChoices, OneChoice, Paging, UpdatePoll, Vote } from './schemas.js';
import { PollService } from './service.js';
import * as store from './store.js';
import type { Poll } from './types.js';
import { choiceView, leadView, pollView, responseView, standingsView } from './views.js';
import { VoteBatcher } from './votes.js';

const after = (cursor: string) => stringCursor(cursor) ?? '';

export function pollsArea(core: Core): Area {
  const { db } = core;
  const polls = new PollService(db);
  const live = new StandingsPush(db, core.bus, core.log);
  core.topics.register('poll', { doc: { events: ['poll.standings'], who: 'anyone with the app token; data is the standings REST object' } });
  const votes = new VoteBatcher(db, core.log, (pollIds) => live.changed(pollIds));
  const withChoices = async (poll: Poll) => pollView(poll, await store.choicesOf(db, [poll.id]));
  const pollIdOf = (params: Record<string, string>) => params['pollid'] as string;
  const userResponses = async (ctx: RequestContext, userId: string) => {
    assertActingAs(ctx, userId);
    const poll = await polls.require(ctx.app, pollIdOf(ctx.params));
    const responses = await store.userResponses(db, poll.id, userId);
    return ok(listPayload('list.poll.responses', 'responses', responses.map(responseView), ''));
  };
  const allResponses = async (ctx: RequestContext, page: { cursor: string; limit: number }) => {
    assertModerator(ctx);
    const poll = await polls.require(ctx.app, pollIdOf(ctx.params));
    const rows = await store.listResponses(db, poll.id, after(page.cursor), page.limit + 1);
    const { items, next } = pageOf(rows, page.limit, (r) => r.id);
    return ok(listPayload('list.poll.responses', 'responses', items.map(responseView), next));
  };

  return {
    async close() {
      await votes.drain();
      live.close();
    },
    routes: [
      route({
        method: 'POST',
        path: 'poll/poll/create',
        body: CreatePoll,
        handler: async (ctx) => {
          assertModerator(ctx);
          return ok(pollView(await polls.create(ctx.app, ctx.body), []), 'Poll created.');
        },
      }),
      route({
        method: 'PUT',
        path: 'poll/poll/:pollid/update',
        body: UpdatePoll,
        handler: async (ctx) => {
          assertModerator(ctx);
          return ok(await withChoices(await polls.update(ctx.app, pollIdOf(ctx.params), ctx.body)), 'Poll updated.');
        },
      }),
      route({
        method: 'GET',
        path: 'poll/poll/:pollid',
        handler: async (ctx) => ok(await withChoices(await polls.require(ctx.app, pollIdOf(ctx.params)))),
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
          const before = stringCursor(ctx.query.cursor);
          const rows = await store.listPolls(db, ctx.app.id, ctx.query.includeunpublished, before, ctx.query.limit + 1);
          const { items, next } = pageOf(rows, ctx.query.limit, (p) => p.id);
          const choices = await store.choicesByPoll(
            db,
            items.map((p) => p.id),
          );
          return ok(
            listPayload(
              'list.polls',
              'polls',
              items.map((p) => pollView(p, choices.get(p.id) ?? [])),
              next,
            ),
          );
        },
      }),
      route({
        method: 'DELETE',
        path: 'poll/poll/:pollid',
        handler: async (ctx) => {
          assertModerator(ctx);
          const { poll, choices } = await polls.delete(ctx.app, pollIdOf(ctx.params));
          return ok({ kind: 'deleted.poll', poll: pollView(poll, choices) }, 'Poll deleted.');
        },
      }),
      route({
        method: 'PUT',
        path: 'poll/poll/:pollid/reset',
        handler: async (ctx) => {
          assertModerator(ctx);
          const { poll, removed } = await polls.reset(ctx.app, pollIdOf(ctx.params));
          live.changed([poll.id]);
          return ok({ kind: 'poll.reset', deletedresponses: removed, poll: await withChoices(poll) }, 'Poll responses removed.');
        },
      }),
      route({
        method: 'POST',
        path: 'poll/poll/:pollid/choice',
        body: AddChoicesBody,
        handler: async (ctx) => {
          assertModerator(ctx);
          const inputs = 'choices' in ctx.body ? validate(ManyChoices, ctx.body, 'body').choices : [validate(OneChoice, ctx.body, 'body')];
          const choices = await polls.addChoices(ctx.app, pollIdOf(ctx.params), inputs);
          return ok(choices.map(choiceView), 'Choices added.');
        },
      }),
      route({
        method: 'GET',
        path: 'poll/poll/:pollid/choices',
        query: ListChoices,
        handler: async (ctx) => {
          const poll = await polls.require(ctx.app, pollIdOf(ctx.params));
          const choices = await store.choicesOf(db, [poll.id], ctx.query.limit);
          return ok(listPayload('list.poll.choices', 'choices', choices.map(choiceView), ''));
        },
      }),
      route({
        method: 'DELETE',
        path: 'poll/poll/:pollid/choice/:choiceid',
        handler: async (ctx) => {
          assertModerator(ctx);
          const choice = await polls.deleteChoice(ctx.app, pollIdOf(ctx.params), param(ctx.params, 'choiceid'));
          live.changed([choice.pollId]);
          return ok({ kind: 'deleted.poll.choice', choice: choiceView(choice) }, 'Choice deleted.');
        },
      }),
      route({
        method: 'POST',
        path: 'poll/poll/:pollid/response',
        limit: 'votes',
        body: Vote,
        handler: async (ctx) => {
          assertActingAs(ctx, ctx.body.userid);
          const outcome = await votes.submit({ appId: ctx.app.id, pollId: pollIdOf(ctx.params), choiceId: ctx.body.choiceid, userId: ctx.body.userid });
          if (!outcome.ok) throw outcome.error;
          return ok(responseView(outcome.response), 'Response recorded.');
        },
      }),
      route({
        method: 'GET',
        path: 'poll/poll/:pollid/standings',
        handler: async (ctx) => {
          const poll = await polls.require(ctx.app, pollIdOf(ctx.params));
          return ok(standingsView(poll, await store.choicesOf(db, [poll.id])));
        },
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
      route({
        method: 'POST',
        path: 'poll/poll/:pollid/lead',
        body: AddLead,
        handler: async (ctx) => {
          if (ctx.body.userid !== undefined) assertActingAs(ctx, ctx.body.userid);
          const poll = await polls.require(ctx.app, pollIdOf(ctx.params));
          const { userid, firstname, lastname, email, phone, custompayload } = ctx.body;
          const lead = await store.insertLead(db, { id: newId(), pollId: poll.id, userId: userid ?? null, firstName: firstname, lastName: lastname, email, phone, customPayload: custompayload });
          return ok(leadView(lead), 'Lead recorded.');
        },
      }),
      route({
        method: 'GET',
        path: 'poll/poll/:pollid/leads',
        access: 'user',
        query: Paging,
        handler: async (ctx) => {
          assertModerator(ctx);
          const poll = await polls.require(ctx.app, pollIdOf(ctx.params));
          const rows = await store.listLeads(db, poll.id, after(ctx.query.cursor), ctx.query.limit + 1);
          const { items, next } = pageOf(rows, ctx.query.limit, (l) => l.id);
          return ok(listPayload('list.poll.leads', 'leads', items.map(leadView), next));
        },
      }),
    ],
  };
}
