import { assertModerator } from '../../http/auth.js';
import { listPayload } from '../../http/cursor.js';
import { ok, param, route, type RouteDef } from '../../http/route.js';
import { validate } from '../../http/validation.js';
import { AddChoicesBody, ListChoices, ManyChoices, OneChoice } from '../schemas.js';
import type { PollService } from '../services/polls.js';
import { choiceView } from '../views.js';

/** A poll's choices: add (one or several), list, delete. */
export function choiceRoutes(polls: PollService): RouteDef[] {
  return [
    route({
      method: 'POST',
      path: 'poll/poll/:pollid/choice',
      limit: 'polls',
      body: AddChoicesBody,
      handler: async (ctx) => {
        assertModerator(ctx);
        const inputs = 'choices' in ctx.body ? validate(ManyChoices, ctx.body, 'body').choices : [validate(OneChoice, ctx.body, 'body')];
        const choices = await polls.addChoices(ctx.app, param(ctx.params, 'pollid'), inputs);
        return ok(choices.map(choiceView), 'Choices added.');
      },
    }),
    route({
      method: 'GET',
      path: 'poll/poll/:pollid/choices',
      query: ListChoices,
      handler: async (ctx) => {
        const poll = await polls.require(ctx.app, param(ctx.params, 'pollid'));
        const choices = await polls.choicesOf(poll, ctx.query.limit);
        return ok(listPayload('list.poll.choices', 'choices', choices.map(choiceView), ''));
      },
    }),
    route({
      method: 'DELETE',
      path: 'poll/poll/:pollid/choice/:choiceid',
      limit: 'polls',
      handler: async (ctx) => {
        assertModerator(ctx);
        const choice = await polls.deleteChoice(ctx.app, param(ctx.params, 'pollid'), param(ctx.params, 'choiceid'));
        return ok({ kind: 'deleted.poll.choice', choice: choiceView(choice) }, 'Choice deleted.');
      },
    }),
  ];
}
