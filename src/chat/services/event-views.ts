import type { Application } from '../../apps/types.js';
import type { Db } from '../../db/client.js';
import { sharesView } from '../../json-once.js';
import type { UserService } from '../../users/service.js';
import { findEventsById } from '../store/events.js';
import type { ChatEvent } from '../types.js';
import { eventView, tombstoneView, type EventView } from '../views.js';
import { markOwnReactions } from './own-reactions.js';

export interface EventViewsDeps {
  db: Db;
  users: UserService;
}

/** chat.event objects for rows: one batch for replyto targets, one for users (cached). */
export class EventViews {
  constructor(private readonly deps: EventViewsDeps) {}

  /** The views as `viewer` sees them: their own reactions listed even where the lists are capped (see own-reactions.ts). */
  async forViewer(app: Application, viewer: string | undefined, views: EventView[]): Promise<EventView[]> {
    if (viewer === undefined) return views;
    const user = await this.deps.users.get(app, viewer);
    const listed = user === undefined ? undefined : { userid: user.userId, handle: user.handle, displayname: user.displayName };
    return markOwnReactions(this.deps.db, listed, views);
  }

  /** `known`: events as a write just left them, used as replyto targets without reading them. */
  async views(app: Application, rows: ChatEvent[], viewer?: string, known?: ReadonlyMap<string, ChatEvent>): Promise<EventView[]> {
    const built = await this.build(app, rows, known);
    return viewer === undefined ? built : this.forViewer(app, viewer, built);
  }

  private async build(app: Application, rows: ChatEvent[], known?: ReadonlyMap<string, ChatEvent>): Promise<EventView[]> {
    const targetIds = [...new Set(rows.map((r) => r.replyToId).filter((id): id is string => id !== null))];
    const targets = new Map<string, ChatEvent>();
    for (const id of targetIds) {
      const target = known?.get(id);
      if (target !== undefined) targets.set(id, target);
    }
    const unknown = targetIds.filter((id) => !targets.has(id));
    for (const t of await findEventsById(this.deps.db, unknown)) targets.set(t.id, t);
    const userIds = new Set<string>();
    const addUsers = (r: ChatEvent) => {
      if (r.userId !== null) userIds.add(r.userId);
      for (const reaction of r.reactions) for (const u of reaction.users) userIds.add(u);
    };
    for (const r of rows) addUsers(r);
    for (const t of targets.values()) addUsers(t);
    const users = await this.deps.users.getMany(app, userIds);
    // One view per target, however many rows of the batch (a crowd's likes) point at it.
    const targetViews = new Map([...targets.values()].map((t) => [t.id, eventView(t, users, null)]));
    return rows.map((r) => {
      if (r.replyToId === null) return eventView(r, users, null);
      const target = targetViews.get(r.replyToId);
      if (target === undefined) return eventView(r, users, tombstoneView(r.replyToId, r.roomId));
      const view = eventView(r, users, target);
      sharesView(view, 'replyto');
      return view;
    });
  }

  async view(app: Application, row: ChatEvent): Promise<EventView> {
    return (await this.views(app, [row]))[0] as EventView;
  }
}
