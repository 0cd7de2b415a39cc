import type { AppDirectory } from '../apps/directory.js';
import type { Db } from '../db/client.js';
import type { PublishedEvent, PublishHook } from '../events/publish-hooks.js';
import { forbidden } from '../errors.js';
import { newId } from '../ids.js';
import type { Logger } from '../logger.js';
import type { Deliveries } from './delivery/pipeline.js';
import { attemptRecords } from './delivery/record.js';
import { deliveriesOf, deliveryBody, hooksView, journalled, matching, type HookRegistry } from './registry.js';
import { budget, send } from './delivery/sender.js';
import * as store from './store/deliveries.js';
import type { Webhook } from './types.js';

export const BLOCKED = 'The event was blocked by a prepublish webhook.';

/** What WebhookPublishHook uses. */
export interface PublishHookDeps {
  db: Db;
  apps: Pick<AppDirectory, 'get'>;
  registry: Pick<HookRegistry, 'cached' | 'forApp' | 'changed'>;
  deliveries: Deliveries;
  /** Failed deliveries in a row after which a hook is disabled. */
  failureLimit: number;
  log: Logger;
}

/**
 * The webhooks side of every published event. prepublish: the event waits for every matching
 * hook (3 s each, in parallel) and any answer but 200 blocks it with a 403. postpublish: the
 * deliveries go to Deliveries, which stores them in the outbox, settling the event's journal
 * row, and sends them off the request path.
 */
export class WebhookPublishHook implements PublishHook {
  constructor(private readonly deps: PublishHookDeps) {}

  async beforePublish(event: PublishedEvent): Promise<void> {
    const hooks = matching(await this.deps.registry.forApp(event.appId), event, 'prepublish');
    if (hooks.length === 0) return;
    const app = await this.deps.apps.get(event.appId);
    if (app === undefined) return;
    const messages = hooks.map((hook) => {
      const id = newId();
      return { id, webhookId: hook.id, url: hook.url, appId: event.appId, eventType: event.eventType, body: deliveryBody(id, event) };
    });
    const deadline = budget();
    const attempts = await Promise.all(messages.map((m) => send(app.webhookSecret, { ...m, messageId: m.id, attempt: 1 }, deadline)));
    const disabled = await store.settle(this.deps.db, { messages, done: [], retry: [], ...attemptRecords(attempts) }, this.deps.failureLimit);
    if (disabled.length > 0) this.deps.registry.changed(event.appId);
    const refusal = attempts.find((a) => a.statusCode !== 200);
    if (refusal !== undefined) {
      this.deps.log.info({ webhookid: refusal.webhookId, statuscode: refusal.statusCode, error: refusal.error }, 'event blocked by prepublish webhook');
      throw forbidden(BLOCKED, { webhook: refusal.statusCode === 0 ? refusal.error : `answered ${refusal.statusCode}` });
    }
  }

  afterPublish(event: PublishedEvent): void {
    const cached = this.deps.registry.cached(event.appId);
    if (cached !== undefined) {
      this.enqueue(event, cached);
      return;
    }
    this.deps.registry.forApp(event.appId).then(
      (hooks) => this.enqueue(event, hooks),
      (err: unknown) => this.deps.log.error({ err, appid: event.appId }, 'loading webhooks failed; the journal sweep will deliver the event'),
    );
  }

  private enqueue(event: PublishedEvent, hooks: Webhook[]): void {
    if (journalled(hooks)) this.deps.deliveries.add({ keys: [event.journalKey], views: [hooksView(hooks)], rows: deliveriesOf(event, hooks) });
  }
}
