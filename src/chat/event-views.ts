import type { Application } from '../apps/types.js';
import type { Db } from '../db/client.js';
import type { UserService } from '../users/service.js';
import type { ChatEvent } from './context.js';
import { findEventsById } from './store/events.js';
import { eventView, type EventView } from './views.js';

/** A removed event's place in a `remove` event's replyto, once its row is gone. */
function tombstone(id: string, roomId: string): EventView {
  const epoch = new Date(0).toISOString();
  return {
    kind: 'chat.event',
    id,
    roomid: roomId,
    body: '',
    originalbody: '',
    added: epoch,
    whenmodified: epoch,
    ts: 0,
    eventtype: 'removed',
    userid: null,
    user: null,
    customtype: '',
    customid: null,
    custompayload: '',
    customfield1: '',
    customfield2: '',
    customtags: [],
    replyto: null,
    parentid: null,
    hierarchy: [],
    edited: false,
    deleted: true,
    active: false,
    shadowban: false,
    mutedby: [],
    hashtags: [],
    likecount: 0,
    replycount: 0,
    reactions: [],
    moderation: 'na',
    reports: [],
  };
}

/** chat.event objects for rows: one batch for replyto targets, one for users (cached). */
export class EventViews {
  constructor(
    private readonly db: Db,
    private readonly users: UserService,
  ) {}

  async views(app: Application, rows: ChatEvent[]): Promise<EventView[]> {
    const targetIds = [...new Set(rows.map((r) => r.replyToId).filter((id): id is string => id !== null))];
    const targets = new Map((await findEventsById(this.db, targetIds)).map((t) => [t.id, t]));
    const userIds = new Set<string>();
    const addUsers = (r: ChatEvent) => {
      if (r.userId !== null) userIds.add(r.userId);
      for (const reaction of r.reactions) for (const u of reaction.users) userIds.add(u);
    };
    for (const r of rows) addUsers(r);
    for (const t of targets.values()) addUsers(t);
    const users = await this.users.getMany(app, userIds);
    return rows.map((r) => {
      if (r.replyToId === null) return eventView(r, users, null);
      const target = targets.get(r.replyToId);
      return eventView(r, users, target === undefined ? tombstone(r.replyToId, r.roomId) : eventView(target, users, null));
    });
  }

  async view(app: Application, row: ChatEvent): Promise<EventView> {
    return (await this.views(app, [row]))[0] as EventView;
  }
}
