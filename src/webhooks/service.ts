import type { Application } from '../apps/types.js';
import { isUniqueViolation } from '../db/errors.js';
import type { Db } from '../db/client.js';
import { conflict, notFound } from '../errors.js';
import { newId } from '../ids.js';
import type { HookRegistry } from './registry.js';
import type { WebhookInput } from './schemas.js';
import * as store from './store.js';
import type { Webhook } from './types.js';

const fields = (input: WebhookInput): store.WebhookFields => ({
  label: input.label,
  url: input.url,
  enabled: input.enabled,
  type: input.type,
  events: input.events,
  requiredCustomTags: input.requiredcustomtags,
  entities: input.entities,
});

/** Webhook records; every change drops the cached copies on every node. */
export class WebhookService {
  constructor(
    private readonly db: Db,
    private readonly registry: HookRegistry,
  ) {}

  async createOrReplace(app: Application, input: WebhookInput): Promise<{ hook: Webhook; inserted: boolean }> {
    const result = await store.upsertByLabel(this.db, newId(), app.id, fields(input));
    this.registry.changed(app.id);
    return result;
  }

  async update(app: Application, id: string, input: WebhookInput): Promise<Webhook> {
    let hook: Webhook | undefined;
    try {
      hook = await store.updateHook(this.db, app.id, id, fields(input));
    } catch (err) {
      if (isUniqueViolation(err)) throw conflict(`Another webhook has the label ${input.label}.`, { label: 'is already in use' });
      throw err;
    }
    if (hook === undefined) throw notFound(`Webhook ${id} not found.`);
    this.registry.changed(app.id);
    return hook;
  }

  async delete(app: Application, id: string): Promise<Webhook> {
    const hook = await store.deleteHook(this.db, app.id, id);
    if (hook === undefined) throw notFound(`Webhook ${id} not found.`);
    this.registry.changed(app.id);
    return hook;
  }

  async require(app: Application, id: string): Promise<Webhook> {
    const hook = await store.findHook(this.db, app.id, id);
    if (hook === undefined) throw notFound(`Webhook ${id} not found.`);
    return hook;
  }
}
