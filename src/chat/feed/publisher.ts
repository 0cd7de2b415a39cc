import type { Core } from '../../core.js';
import type { NotifyTarget, PublishedEvent } from '../../events/publish-hooks.js';
import type { LiveMessage } from '../../realtime/live.js';
import { extractMentions } from '../../text/tags.js';
import type { ChatEvent, EventView, Room } from '../context.js';
import type { EventViews } from '../event-views.js';
import { findEventsById } from '../store/events.js';
import { updatesCursor } from './cursor.js';
import { feedTopic } from './topics.js';
import { FeedWriter, type Written } from './writer.js';

/** Event types that webhooks see, as `chat{type}`. */
const HOOKED = new Set(['speech', 'quote', 'reply', 'reaction', 'action', 'enter', 'exit', 'roomopened', 'roomclosed', 'purge', 'custom']);

/** The payload webhooks get for a chat event; also what prepublish hooks judge before the write. */
export function hookEvent(room: Room, view: EventView, notify: NotifyTarget[]): PublishedEvent | undefined {
  if (!HOOKED.has(view.eventtype)) return undefined;
  return {
    appId: room.appId,
    eventType: `chat${view.eventtype}`,
    containerTags: room.customTags,
    entity: 'chat',
    containerId: room.id,
    containerCustomId: room.customId,
    payload: view,
    notify,
    actorUserId: view.userid ?? '',
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
export function createFeedWriter(core: Core, views: EventViews): FeedWriter {
  return new FeedWriter(core.db, core.log, async (written) => {
    await buildViews(views, written);
    const replies = written.flatMap((w) => w.rows).filter((r) => r.eventType === 'reply' && r.parentId !== null && r.seq !== null);
    const parents = new Map(
      (
        await findEventsById(
          core.db,
          replies.map((r) => r.parentId as string),
        )
      ).map((p) => [p.id, p.userId]),
    );
    for (const w of written) {
      w.rows.forEach((row, i) => {
        if (row.seq === null) return;
        const view = w.views[i] as EventView;
        const live: LiveMessage = { type: 'chat.event', data: view, seq: row.seq, cursor: updatesCursor(row.seq) };
        core.bus.publish(w.job.app.id, { topic: feedTopic(row.roomId, row.shadowban), payload: live });
        if (row.shadowban) return;
        const hooked = hookEvent(w.job.room, view, notifyTargets(view, row.parentId === null ? null : (parents.get(row.parentId) ?? null)));
        if (hooked !== undefined) core.hooks.afterPublish(hooked);
      });
    }
  });
}

async function buildViews(views: EventViews, written: Written[]): Promise<void> {
  for (const w of written) {
    const pre = w.job.views;
    const missing: ChatEvent[] = w.rows.filter((r) => pre?.get(r.id) === undefined);
    const built = missing.length === 0 ? [] : await views.views(w.job.app, missing);
    let k = 0;
    w.views = w.rows.map((r) => pre?.get(r.id) ?? (built[k++] as EventView));
  }
}
