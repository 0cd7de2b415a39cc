import type { Application } from '../../apps/types.js';
import type { Db } from '../../db/client.js';
import type { NotifyTarget, PublishedEvent, PublishHooks, WrittenNotification } from '../../events/publish-hooks.js';
import type { Logger } from '../../logger.js';
import type { Bus } from '../../realtime/bus.js';
import type { LiveMessage } from '../../realtime/live.js';
import { extractMentions } from '../../text/tags.js';
import type { EventViews } from '../services/event-views.js';
import { findEventsById } from '../store/events.js';
import type { ReactionLimits } from '../store/reactions.js';
import type { ChatEvent, Room } from '../types.js';
import type { EventView } from '../views.js';
import { updatesCursor } from './cursor.js';
import { feedTopic } from './topics.js';
import { FeedWriter, type Written } from './writer.js';

/** Event types that webhooks see, as `chat{type}`. */
const HOOKED = new Set(['speech', 'quote', 'reply', 'reaction', 'action', 'enter', 'exit', 'roomopened', 'roomclosed', 'purge', 'custom']);

/** The payload webhooks get for a chat event; also what prepublish hooks judge before the write. */
export function hookEvent(room: Room, view: EventView, notify: NotifyTarget[], notified: WrittenNotification[] = []): PublishedEvent | undefined {
  if (!HOOKED.has(view.eventtype)) return undefined;
  return {
    notified,
    appId: room.appId,
    eventType: `chat${view.eventtype}`,
    containerTags: room.customTags,
    entity: 'chat',
    containerId: room.id,
    containerCustomId: room.customId,
    payload: view,
    notify,
    actorUserId: view.userid ?? '',
    journalKey: view.id,
  };
}

/** Who hears about an event: the author replied to, quoted or reacted to, and @mentioned handles. */
export function notifyTargets(view: EventView, parentAuthor: string | null): NotifyTarget[] {
  const out: NotifyTarget[] = [];
  const author = view.userid;
  if (view.eventtype === 'reply' && parentAuthor !== null && parentAuthor !== author) out.push({ userid: parentAuthor, type: 'reply' });
  const target = view.replyto?.userid ?? null;
  if ((view.eventtype === 'quote' || view.eventtype === 'reaction') && target !== null && target !== author) out.push({ userid: target, type: view.eventtype });
  if (view.eventtype !== 'reaction') for (const m of extractMentions(view.body)) out.push({ handle: m.slice(1), type: 'mention' });
  return out;
}

/**
 * The one way chat events enter a room's feed: the group-commit writer, then, in seq order,
 * the live push (`room:{roomid}`, as publishLive sends it; it also feeds every node's memory
 * ring) and the webhooks.
 */
export interface FeedPublisherDeps {
  db: Db;
  log: Logger;
  bus: Bus;
  hooks: PublishHooks;
  views: EventViews;
  reactionLimits: ReactionLimits;
}

export function createFeedWriter({ db, log, bus, hooks, views, reactionLimits }: FeedPublisherDeps): FeedWriter {
  return new FeedWriter(
    db,
    log,
    async (written) => {
      await buildViews(views, written);
      const replies = written.flatMap((w) => w.rows).filter((r) => r.eventType === 'reply' && r.parentId !== null && r.seq !== null);
      const parents = new Map(
        (
          await findEventsById(
            db,
            replies.map((r) => r.parentId as string),
          )
        ).map((p) => [p.id, p.userId]),
      );
      for (const w of written) {
        w.rows.forEach((row, i) => {
          if (row.seq === null) return;
          const view = w.views[i] as EventView;
          const live: LiveMessage = { type: 'chat.event', data: view, seq: row.seq, cursor: updatesCursor(row.seq) };
          bus.publish(w.job.app.id, { topic: feedTopic(row.roomId, row.shadowban), payload: live });
          if (row.shadowban) return;
          // A reaction's notification was written with it (see reaction-notices.ts), or none was owed.
          const hooked =
            w.notice === undefined
              ? hookEvent(w.job.room, view, notifyTargets(view, row.parentId === null ? null : (parents.get(row.parentId) ?? null)))
              : hookEvent(w.job.room, view, [], w.notice === null ? [] : [w.notice]);
          if (hooked !== undefined) hooks.afterPublish(hooked);
        });
      }
    },
    reactionLimits,
  );
}

/** Views of every row not built before the commit: one batch per application, so a batch of reactions to one event reads the target once, or not at all when the write returned it. */
async function buildViews(views: EventViews, written: Written[]): Promise<void> {
  // The views a job brought are set first: a read failing below (the database gone mid-failover) leaves them answered.
  for (const w of written) w.views = w.rows.map((r) => w.job.views?.get(r.id) as EventView);
  const missing = new Map<string, { app: Application; rows: ChatEvent[] }>();
  for (const w of written) {
    const rows = w.rows.filter((_, i) => w.views[i] === undefined);
    if (rows.length === 0) continue;
    const group = missing.get(w.job.app.id);
    if (group === undefined) missing.set(w.job.app.id, { app: w.job.app, rows });
    else group.rows.push(...rows);
  }
  const known = new Map(written.flatMap((w) => w.changed ?? []).map((e) => [e.id, e]));
  const built = new Map<string, EventView>();
  for (const { app, rows } of missing.values()) {
    const made = await views.views(app, rows, undefined, known);
    rows.forEach((r, i) => built.set(r.id, made[i] as EventView));
  }
  for (const w of written) w.views = w.views.map((view, i) => view ?? (built.get((w.rows[i] as ChatEvent).id) as EventView));
}
