import type { Area, Core } from '../core.js';
import type { Logger } from '../logger.js';
import { metricSources } from '../metrics/sources.js';
import { DeliveryThread } from './delivery/delivery-thread.js';
import { WebhookPublishHook } from './hook.js';
import { JournalSweep } from './delivery/journal-sweep.js';
import { DeliveryPipeline, type Deliveries } from './delivery/pipeline.js';
import { HookRegistry } from './registry.js';
import { webhookRoutes } from './routes.js';
import { denyPrivateReceivers } from './delivery/sender.js';
import { WebhookService } from './service.js';
import { outboxDepth } from './store/deliveries.js';
import { disabledByFailures } from './store/hooks.js';

/** Webhooks: their REST routes, the publish hook that calls them, and the delivery of postpublish events. */
export function webhooksArea(core: Core): Area {
  const { db, config } = core;
  const log = core.log.child({ area: 'webhooks' });
  const registry = new HookRegistry({ db, bus: core.bus });
  const deliveries = startDeliveries(core, log, (appId) => registry.changed(appId));
  metricSources.webhooks({ queued: () => outboxDepth(db), disabled: () => disabledByFailures(db, config.webhookFailureLimit) });
  const hooks = new WebhookService({ db, registry, denyPrivate: config.webhookDenyPrivate, maxHooks: config.webhookMaxHooks });
  // Prepublish hooks are sent from this thread.
  if (config.webhookDenyPrivate) denyPrivateReceivers();
  core.hooks.add(new WebhookPublishHook({ db, apps: core.apps, registry, deliveries, failureLimit: config.webhookFailureLimit, log }));
  const sweep = new JournalSweep({ db, apps: core.apps, sources: core.hooks.journal, deliveries, log, mayWrite: () => core.database.storage.mayWrite() });
  sweep.start();
  return {
    close: async () => {
      await sweep.stop();
      await deliveries.close();
    },
    routes: webhookRoutes(hooks),
  };
}

/** On Postgres deliveries get a thread of their own; the embedded database lives in this thread, so they stay here. */
function startDeliveries(core: Core, log: Logger, onDisabled: (appId: string) => void): Deliveries {
  const settings = { failureLimit: core.config.webhookFailureLimit, logRetentionSeconds: core.config.webhookLogRetentionSeconds, denyPrivate: core.config.webhookDenyPrivate };
  const databaseUrl = core.config.databaseUrl;
  if (databaseUrl === undefined) return new DeliveryPipeline(core.db, log, { ...settings, mayWrite: () => core.database.storage.mayWrite() }, onDisabled);
  return new DeliveryThread({ ...settings, databaseUrl, databasePooler: core.database.pooler, logLevel: core.config.logLevel }, log, onDisabled);
}
