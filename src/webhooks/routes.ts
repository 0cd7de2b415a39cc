import type { Area, Core } from '../core.js';
import { assertAdmin } from '../http/auth.js';
import { badRequest } from '../errors.js';
import { listPayload, pageOf, stringCursor } from '../http/cursor.js';
import { ok, param, route } from '../http/route.js';
import type { Logger } from '../logger.js';
import { metricSources } from '../metrics/sources.js';
import { DeliveryThread } from './delivery-thread.js';
import { WebhookPublishHook } from './hook.js';
import { DeliveryPipeline, type Deliveries } from './pipeline.js';
import { HookRegistry } from './registry.js';
import { resolvesPrivate } from './private-addresses.js';
import { Paging, WebhookBody } from './schemas.js';
import { denyPrivateReceivers } from './sender.js';
import { WebhookService } from './service.js';
import * as store from './store.js';
import { logEntryView, webhookView } from './views.js';

export function webhooksArea(core: Core): Area {
  const { db } = core;
  const log = core.log.child({ area: 'webhooks' });
  const registry = new HookRegistry(db, core.bus);
  const deliveries = startDeliveries(core, log, (appId) => registry.changed(appId));
  metricSources.webhooks({ queued: () => store.outboxDepth(db), disabled: () => store.disabledByFailures(db, core.config.webhookFailureLimit) });
  const hooks = new WebhookService(db, registry);
  // Prepublish hooks are sent from this thread.
  if (core.config.webhookDenyPrivate) denyPrivateReceivers();
  const assertReceiverAllowed = async (url: string) => {
    if (core.config.webhookDenyPrivate && (await resolvesPrivate(url)))
      throw badRequest('The webhook URL resolves to a loopback or private address.', { url: 'must not resolve to a loopback or private address' });
  };
  core.hooks.add(new WebhookPublishHook(db, core.apps, registry, deliveries, core.config.webhookFailureLimit, log));

  return {
    close: () => deliveries.close(),
    routes: [
      route({
        method: 'POST',
        path: 'webhook/hooks',
        access: 'admin',
        body: WebhookBody,
        handler: async (ctx) => {
          assertAdmin(ctx);
          await assertReceiverAllowed(ctx.body.url);
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
          const after = stringCursor(ctx.query.cursor) ?? '';
          const rows = await store.listHooks(db, ctx.app.id, after, ctx.query.limit + 1);
          const { items, next } = pageOf(rows, ctx.query.limit, (h) => h.id);
          return ok(listPayload('list.webhooks', 'webhooks', items.map(webhookView), next));
        },
      }),
      route({
        method: 'PUT',
        path: 'webhook/hooks/:webhookid',
        access: 'admin',
        body: WebhookBody,
        handler: async (ctx) => {
          assertAdmin(ctx);
          await assertReceiverAllowed(ctx.body.url);
          return ok(webhookView(await hooks.update(ctx.app, param(ctx.params, 'webhookid'), ctx.body)), 'Updated');
        },
      }),
      route({
        method: 'DELETE',
        path: 'webhook/hooks/:webhookid',
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
          const hook = await hooks.require(ctx.app, param(ctx.params, 'webhookid'));
          const before = stringCursor(ctx.query.cursor);
          const rows = await store.listLog(db, hook.id, before, ctx.query.limit + 1);
          const { items, next } = pageOf(rows, ctx.query.limit, (e) => e.id);
          return ok(listPayload('list.webhook.logentries', 'logentries', items.map(logEntryView), next));
        },
      }),
    ],
  };
}

/** On Postgres deliveries get a thread of their own; the embedded database lives in this thread, so they stay here. */
function startDeliveries(core: Core, log: Logger, onDisabled: (appId: string) => void): Deliveries {
  const settings = { failureLimit: core.config.webhookFailureLimit, logRetentionSeconds: core.config.webhookLogRetentionSeconds, denyPrivate: core.config.webhookDenyPrivate };
  const databaseUrl = core.config.databaseUrl;
  if (databaseUrl === undefined) return new DeliveryPipeline(core.db, log, settings, onDisabled);
  return new DeliveryThread({ ...settings, databaseUrl, logLevel: core.config.logLevel }, log, onDisabled);
}
