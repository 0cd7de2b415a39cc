import { ReplicatedCache } from '../cache/replicated-cache.js';
import type { Db } from '../db/client.js';
import type { PublishedEvent } from '../events/publish-hooks.js';
import { internal } from '../internal-messages.js';
import { newId } from '../ids.js';
import { jsonOnce } from '../json-once.js';
import type { Bus } from '../realtime/bus.js';
import * as store from './store/hooks.js';
import type { OutboxRow, Webhook } from './types.js';

/** Apps whose hooks are held; beyond, the oldest held is read again when next needed. */
const APPS_REMEMBERED = 10_000;

/** What HookRegistry uses. */
export interface HookRegistryDeps {
  db: Db;
  /** Announces each change, so every node drops its copy. */
  bus: Bus;
}

/**
 * Each app's hooks, kept in memory so publishing in an app without hooks costs a map lookup.
 * Every change is announced on the bus and every node drops its copy of that app.
 */
export class HookRegistry {
  private readonly db: Db;
  private readonly byApp: ReplicatedCache<Webhook[]>;

  constructor({ db, bus }: HookRegistryDeps) {
    this.db = db;
    this.byApp = new ReplicatedCache<Webhook[]>(bus, { invalidation: internal.webhooksChanged, limit: APPS_REMEMBERED });
  }

  /** The app's hooks when already in memory. */
  cached(appId: string): Webhook[] | undefined {
    return this.byApp.peek(appId);
  }

  async forApp(appId: string): Promise<Webhook[]> {
    return this.byApp.peek(appId) ?? (await this.byApp.load(appId, () => store.hooksOf(this.db, appId))) ?? [];
  }

  changed(appId: string): void {
    this.byApp.invalidate(appId, appId);
  }
}

/**
 * True when publishing an event of this app wrote a webhook_journal row: the app has an enabled
 * postpublish hook, the condition the journal is written on (webhook_hooked_app, migration 0005).
 */
export const journalled = (hooks: Webhook[]) => hooks.some((h) => h.enabled && h.type === 'postpublish');

/**
 * The app's enabled postpublish hooks as deliveries are built from them: each id with when it
 * was last changed (ms), in id order. The settling statement compares it with the database's
 * (store/deliveries.ts, enqueue), so a node whose cached hooks missed a change on another node
 * settles nothing with them.
 */
export const hooksView = (hooks: Webhook[]) =>
  hooks
    .filter((h) => h.enabled && h.type === 'postpublish')
    .map((h) => `${h.id}@${h.whenModified.getTime()}`)
    .sort()
    .join(',');

/** The enabled hooks of this type that subscribe to the event and whose filters it passes. */
export function matching(hooks: Webhook[], event: PublishedEvent, type: 'prepublish' | 'postpublish'): Webhook[] {
  return hooks.filter(
    (h) =>
      h.enabled &&
      h.type === type &&
      h.events.includes(event.eventType) &&
      (h.entities.length === 0 || h.entities.includes(event.entity)) &&
      h.requiredCustomTags.every((tag) => event.containerTags.includes(tag)),
  );
}

/** The postpublish deliveries an event owes: one message for each hook it matches. */
export function deliveriesOf(event: PublishedEvent, hooks: Webhook[]): OutboxRow[] {
  return matching(hooks, event, 'postpublish').map((hook) => {
    const id = newId();
    return { id, webhookId: hook.id, appId: event.appId, eventType: event.eventType, body: deliveryBody(id, event), journalKey: event.journalKey };
  });
}

/** The JSON body a receiver gets (docs/webhooks.md). */
export function deliveryBody(messageId: string, event: PublishedEvent): string {
  const head = JSON.stringify({
    kind: 'webhook.event',
    id: messageId,
    type: event.eventType,
    appid: event.appId,
    entity: event.entity,
    containerid: event.containerId,
    timestamp: new Date().toISOString(),
  });
  return `${head.slice(0, -1)},"data":${jsonOnce(event.payload)}}`;
}
