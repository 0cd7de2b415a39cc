import type { Queryable } from '../../db/client.js';
import { reactionsBy } from '../store/reactions.js';
import type { EventView, ReactionView } from '../views.js';

type Listed = ReactionView['users'][number];

/** True when some reaction of the view lists fewer users than reacted (the list is capped). */
const capped = (view: EventView) => view.reactions.some((r) => r.users.length < r.count);

/** The view with `user` listed first under reaction `type` (before the latest, as theirs is older), unless already listed. */
export function withOwnReaction(view: EventView, type: string, user: Listed): EventView {
  const entry = view.reactions.find((r) => r.type === type);
  if (entry === undefined || entry.users.some((u) => u.userid === user.userid)) return view;
  return { ...view, reactions: view.reactions.map((r) => (r === entry ? { ...r, users: [user, ...r.users] } : r)) };
}

/**
 * Reaction lists name only the latest users, so a viewer's own reaction may be cut off; this puts
 * it back in the views (and their replyto targets) where it is, so an app can show "you liked
 * this". One query, and only when a view's list is capped; unchanged views are returned as they
 * are (the same objects, so their cached JSON can be reused).
 */
export async function markOwnReactions(q: Queryable, viewer: Listed | undefined, views: EventView[]): Promise<EventView[]> {
  if (viewer === undefined) return views;
  const ids = new Set<string>();
  for (const v of views) {
    if (capped(v)) ids.add(v.id);
    if (v.replyto !== null && capped(v.replyto)) ids.add(v.replyto.id);
  }
  if (ids.size === 0) return views;
  const own = await reactionsBy(q, viewer.userid, [...ids]);
  if (own.length === 0) return views;
  const mark = (view: EventView) => own.reduce((v, r) => (r.eventId === v.id ? withOwnReaction(v, r.type, viewer) : v), view);
  return views.map((v) => {
    const marked = mark(v);
    const target = v.replyto === null ? null : mark(v.replyto);
    return target === v.replyto ? marked : { ...marked, replyto: target };
  });
}
