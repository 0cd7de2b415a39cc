import { assertAdmin } from '../http/auth.js';
import { listPayload } from '../http/cursor.js';
import { ok, param, route, type RouteDef } from '../http/route.js';
import { Paging, WebhookBody } from './schemas.js';
import type { WebhookService } from './service.js';
import { logEntryView, webhookView } from './views.js';

/** Webhooks, for the app's administrators: create or replace, list, update, delete, and each one's delivery log. */
export function webhookRoutes(hooks: WebhookService): RouteDef[] {
  return [
    route({
      method: 'POST',
      path: 'webhook/hooks',
      limit: 'moderation',
      access: 'admin',
      body: WebhookBody,
      handler: async (ctx) => {
        assertAdmin(ctx);
        const { hook, inserted } = await hooks.createOrReplace(ctx.app, ctx.body);
        return ok(webhookView(hook), inserted ? 'Inserted' : 'Replaced');
      },
    }),
    route({
      method: 'GET',
      path: 'webhook/hooks',
      access: 'admin',
      query: Paging,
      handler: async (ctx) => {
        assertAdmin(ctx);
        const { items, next } = await hooks.list(ctx.app, ctx.query);
        return ok(listPayload('list.webhooks', 'webhooks', items.map(webhookView), next));
      },
    }),
    route({
      method: 'PUT',
      path: 'webhook/hooks/:webhookid',
      limit: 'moderation',
      access: 'admin',
      body: WebhookBody,
      handler: async (ctx) => {
        assertAdmin(ctx);
        return ok(webhookView(await hooks.update(ctx.app, param(ctx.params, 'webhookid'), ctx.body)), 'Updated');
      },
    }),
    route({
      method: 'DELETE',
      path: 'webhook/hooks/:webhookid',
      limit: 'moderation',
      access: 'admin',
      handler: async (ctx) => {
        assertAdmin(ctx);
        const hook = await hooks.delete(ctx.app, param(ctx.params, 'webhookid'));
        return ok({ kind: 'deleted.webhook', webhook: webhookView(hook) }, 'Deleted');
      },
    }),
    route({
      method: 'GET',
      path: 'webhook/hooks/:webhookid/logentries',
      access: 'admin',
      query: Paging,
      handler: async (ctx) => {
        assertAdmin(ctx);
        const { items, next } = await hooks.logEntries(ctx.app, param(ctx.params, 'webhookid'), ctx.query);
        return ok(listPayload('list.webhook.logentries', 'logentries', items.map(logEntryView), next));
      },
    }),
  ];
}
