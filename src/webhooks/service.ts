import type { Application } from '../apps/types.js';
import { isUniqueViolation } from '../db/errors.js';
import type { Db } from '../db/client.js';
import { badRequest, conflict, notFound } from '../errors.js';
import { type Page, pageOf, stringCursor } from '../http/cursor.js';
import { newId } from '../ids.js';
import { resolvesPrivate } from './delivery/private-addresses.js';
import type { HookRegistry } from './registry.js';
import type { PageRequest, WebhookInput } from './schemas.js';
import { listLog } from './store/deliveries.js';
import * as store from './store/hooks.js';
import type { LogEntryWithPayload, Webhook, WebhookFields } from './types.js';

const fields = (input: WebhookInput): WebhookFields => ({
  label: input.label,
  url: input.url,
  enabled: input.enabled,
  type: input.type,
  events: input.events,
  requiredCustomTags: input.requiredcustomtags,
  entities: input.entities,
});

/** What WebhookService uses. */
export interface WebhookServiceDeps {
  db: Db;
  registry: Pick<HookRegistry, 'changed'>;
  /** WEBHOOK_DENY_PRIVATE: a hook's URL must not resolve to a loopback or private address. */
  denyPrivate: boolean;
  /** WEBHOOK_MAX_HOOKS: hooks per application (every matching event is delivered once per hook). */
  maxHooks: number;
}

/** Webhook records and their delivery log; every change drops the cached copies on every node. */
export class WebhookService {
  constructor(private readonly deps: WebhookServiceDeps) {}

  async createOrReplace(app: Application, input: WebhookInput): Promise<{ hook: Webhook; inserted: boolean }> {
    await this.assertReceiverAllowed(input.url);
    const held = await store.hooksOf(this.deps.db, app.id);
    if (held.length >= this.deps.maxHooks && !held.some((h) => h.label === input.label)) {
      throw conflict(`The application already has ${this.deps.maxHooks} webhooks; delete one or replace one by its label.`, { label: `would add a webhook beyond ${this.deps.maxHooks}` });
    }
    const result = await this.deps.db.transaction(async (tx) => {
      await store.holdPublishing(tx);
      return store.upsertByLabel(tx, newId(), app.id, fields(input));
    });
    this.deps.registry.changed(app.id);
    return result;
  }

  async update(app: Application, id: string, input: WebhookInput): Promise<Webhook> {
    await this.assertReceiverAllowed(input.url);
    let hook: Webhook | undefined;
    try {
      hook = await this.deps.db.transaction(async (tx) => {
        await store.holdPublishing(tx);
        return store.updateHook(tx, app.id, id, fields(input));
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw conflict(`Another webhook has the label ${input.label}.`, { label: 'is already in use' });
      throw err;
    }
    if (hook === undefined) throw notFound(`Webhook ${id} not found.`);
    this.deps.registry.changed(app.id);
    return hook;
  }

  async delete(app: Application, id: string): Promise<Webhook> {
    const hook = await store.deleteHook(this.deps.db, app.id, id);
    if (hook === undefined) throw notFound(`Webhook ${id} not found.`);
    this.deps.registry.changed(app.id);
    return hook;
  }

  async require(app: Application, id: string): Promise<Webhook> {
    const hook = await store.findHook(this.deps.db, app.id, id);
    if (hook === undefined) throw notFound(`Webhook ${id} not found.`);
    return hook;
  }

  /** The app's hooks in id order. */
  async list(app: Application, page: PageRequest): Promise<Page<Webhook>> {
    const rows = await store.listHooks(this.deps.db, app.id, stringCursor(page.cursor) ?? '', page.limit + 1);
    return pageOf(rows, page.limit, (h) => h.id);
  }

  /** The hook's delivery attempts, newest first. */
  async logEntries(app: Application, id: string, page: PageRequest): Promise<Page<LogEntryWithPayload>> {
    const hook = await this.require(app, id);
    const rows = await listLog(this.deps.db, hook.id, stringCursor(page.cursor), page.limit + 1);
    return pageOf(rows, page.limit, (e) => e.id);
  }

  private async assertReceiverAllowed(url: string): Promise<void> {
    if (this.deps.denyPrivate && (await resolvesPrivate(url)))
      throw badRequest('The webhook URL resolves to a loopback or private address.', { url: 'must not resolve to a loopback or private address' });
  }
}
