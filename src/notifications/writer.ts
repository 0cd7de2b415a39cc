import type { AppDirectory } from '../apps/directory.js';
import type { Db } from '../db/client.js';
import type { NotifyTarget, PublishedEvent, PublishHook } from '../events/publish-hooks.js';
import { newId } from '../ids.js';
import type { Logger } from '../logger.js';
import { TickBatcher } from '../db/tick-batcher.js';
import { sharesView } from '../json-once.js';
import { groupBy } from '../group-by.js';
import type { Bus } from '../realtime/bus.js';
import { publishLive, topicName } from '../realtime/live.js';
import { usersByHandle } from '../users/store.js';
import { asStored, insertNotifications } from './insert.js';
import type { NewNotification, NotificationWithPayload } from './types.js';
import { notificationView } from './views.js';
import { commitMetrics } from '../metrics/registry.js';

/**
 * Under a steady stream of events, at most one notification statement per this many ms: its fixed
 * cost (about 0.4 ms on the embedded database, a commit included) is shared by a crowd's likes of
 * 20 ms rather than of one feed write. Notifications answer no request, so nobody waits for it.
 */
const SPACING_MS = 20;

/**
 * Turns the `notify` targets of published events into notifications: the events of one flush
 * (see SPACING_MS) are written together (one handle lookup per app, one INSERT), then each
 * notification is pushed to `user:{userid}`. The actor is never notified about themself.
 * Notifications an event's own statement wrote (a like's) are only pushed.
 */
export class NotificationWriter implements PublishHook {
  private readonly batcher: TickBatcher<PublishedEvent>;

  constructor(
    private readonly db: Db,
    private readonly apps: AppDirectory,
    private readonly bus: Bus,
    log: Logger,
  ) {
    this.batcher = new TickBatcher((events) => this.write(events), log, 'writing notifications', commitMetrics('notifications'), SPACING_MS);
  }

  async beforePublish(): Promise<void> {}

  afterPublish(event: PublishedEvent): void {
    for (const n of event.notified ?? []) if (this.reachable(event.appId, n.userId)) this.push(asStored(notificationOf(event, n.id, n.userId, n.type), n.added));
    if (event.notify.length > 0) this.batcher.add([event]);
  }

  /** Resolves once every event seen so far is written. */
  drain(): Promise<void> {
    return this.batcher.drain();
  }

  private async write(events: PublishedEvent[]): Promise<void> {
    const rows = (await Promise.all([...groupBy(events, (e) => e.appId)].map(([appId, own]) => this.rowsFor(appId, own)))).flat();
    for (const n of await insertNotifications(this.db, rows)) if (this.reachable(n.appId, n.userId)) this.push(n);
  }

  /** False when no socket or stream can receive a push to `user:{id}` (an author offline while a crowd likes): the push is not made. */
  private reachable(appId: string, userId: string): boolean {
    return this.bus.reaches(appId, topicName('user', userId));
  }

  private push(n: NotificationWithPayload): void {
    const view = notificationView(n);
    sharesView(view, 'payload');
    publishLive(this.bus, n.appId, 'user', n.userId, { type: 'notification', data: view });
  }

  private async rowsFor(appId: string, events: PublishedEvent[]): Promise<NewNotification[]> {
    const app = await this.apps.get(appId);
    if (app === undefined) return [];
    const handles = [...new Set(events.flatMap((e) => e.notify.flatMap((t) => (t.handle === undefined ? [] : [t.handle.toLowerCase()]))))];
    const byHandle = await usersByHandle(this.db, app.userPool, handles);
    return events.flatMap((event) => {
      const seen = new Set<string>();
      return event.notify.flatMap((target) => {
        const userId = target.userid ?? (target.handle === undefined ? undefined : byHandle.get(target.handle.toLowerCase()));
        const key = `${userId}\u0000${target.type}`;
        if (userId === undefined || userId === event.actorUserId || seen.has(key)) return [];
        seen.add(key);
        return [notificationOf(event, newId(), userId, target.type)];
      });
    });
  }
}

/** The notification of `event` to `userId`. */
function notificationOf(event: PublishedEvent, id: string, userId: string, type: NotifyTarget['type']): NewNotification {
  return {
    id,
    appId: event.appId,
    userId,
    type,
    eventType: event.eventType,
    entity: event.entity,
    containerId: event.containerId,
    containerCustomId: event.containerCustomId,
    itemId: itemIdOf(event.payload),
    fromUserId: event.actorUserId,
    payload: event.payload,
  };
}

/** The published chat event's or comment's id (both REST objects carry `id`). */
function itemIdOf(payload: unknown): string {
  const id = (payload as { id?: unknown } | null)?.id;
  return typeof id === 'string' ? id : '';
}
