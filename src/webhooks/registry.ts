import type { Db } from '../db/client.js';
import type { PublishedEvent } from '../events/publish-hooks.js';
import { jsonOnce } from '../json-once.js';
import type { Bus } from '../realtime/bus.js';
import { SingleFlight } from '../single-flight.js';
import * as store from './store.js';
import type { Webhook } from './types.js';

const CHANGED = 'webhooks-changed';

/**
 * Each app's hooks, kept in memory so publishing in an app without hooks costs a map lookup.
 * Every change is announced on the bus and every node drops its copy of that app.
 */
export class HookRegistry {
  private readonly byApp = new Map<string, Webhook[]>();
  private readonly loading = new SingleFlight<Webhook[]>();

  constructor(
    private readonly db: Db,
    private readonly bus: Bus,
  ) {
    bus.onMessage((appId, message) => {
      if (message.topic !== CHANGED) return;
      this.byApp.delete(appId);
      this.loading.invalidate(appId);
    });
  }

  /** The app's hooks when already in memory. */
  cached(appId: string): Webhook[] | undefined {
    return this.byApp.get(appId);
  }

  async forApp(appId: string): Promise<Webhook[]> {
    const cached = this.byApp.get(appId);
    if (cached !== undefined) return cached;
    return this.loading.run(
      appId,
      () => store.hooksOf(this.db, appId),
      (hooks) => this.byApp.set(appId, hooks),
    );
  }

  changed(appId: string): void {
    this.bus.broadcast(appId, { topic: CHANGED, payload: null });
  }
}

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
