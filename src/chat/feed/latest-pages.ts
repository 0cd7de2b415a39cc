import type { Application } from '../../apps/types.js';
import type { Db } from '../../db/client.js';
import type { Logger } from '../../logger.js';
import { jsonOnce } from '../../json-once.js';
import { SharedAnswers, withItsAnswer } from '../../shared-answers.js';
import type { UserService } from '../../users/service.js';
import type { EventViews } from '../services/event-views.js';
import type { EventView } from '../views.js';
import { updatesCursor } from './cursor.js';
import { LatestRows } from './latest-rows.js';

/** Shadow-banned events a shared page holds for their authors at most; past it their authors read alone. */
const SHADOWED_HELD = 500;

/** A room's newest displayable events as everyone sees them, read and serialised once per version of the room's feed. */
export interface SharedLatest {
  /** Oldest first. */
  events: EventView[];
  seqs: number[];
  cursor: string;
  more: boolean;
  oldestSeq: number;
  /** The page after its `room` field: `,"cursor":…,"events":[…]}`. */
  tail: Buffer;
  /** Shadow-banned events within the page's span, which only their authors see; undefined when more than SHADOWED_HELD. */
  shadowed: { seq: number; view: EventView }[] | undefined;
  /** Every user the events show, and the users' stamp taken before their views were made (or last found current). */
  users: string[];
  usersStamp: number;
}

export interface LatestPagesDeps {
  db: Db;
  log: Logger;
  views: EventViews;
  users: UserService;
  /** Bytes of pages held at most. */
  maxBytes: number;
}

/**
 * The page of a room's newest events (`updates` without a cursor, the join's first page), shared
 * by everyone who asks for it at the same feed head and events revision: new events move the head,
 * changes in place move the revision (whichever node made them), and the users the page shows are
 * checked against the users' cache, whose changes every node hears of. One read and one
 * serialisation per change, not one per fan.
 */
export class LatestPages {
  private readonly pages: SharedAnswers<SharedLatest>;
  private readonly rows: LatestRows;

  constructor(private readonly deps: LatestPagesDeps) {
    // The page's JSON and its answer, and about as much again for its events' views.
    this.pages = new SharedAnswers({ name: 'latest_page', maxBytes: deps.maxBytes, sizeOf: (page) => withItsAnswer(page.tail.length) + page.tail.length });
    this.rows = new LatestRows(deps.db, deps.log, SHADOWED_HELD);
  }

  /** The page of `limit` events up to `head` (seq and events revision as read after the request began). */
  async page(app: Application, roomId: string, limit: number, head: { seq: number; revision: number }): Promise<SharedLatest> {
    const key = `${app.id}/${roomId}/${limit}`;
    const want = { version: `${head.seq}/${head.revision}` };
    const read = () => this.read(app, roomId, limit, head.seq);
    const held = await this.pages.take(key, want, read);
    const stamp = this.deps.users.stamp();
    if (this.deps.users.unchangedSince(app, held.users, held.usersStamp)) {
      // Current as of now: the next caller need only look at changes after this.
      held.usersStamp = stamp;
      return held;
    }
    this.pages.drop(key);
    return this.pages.take(key, want, read);
  }

  private async read(app: Application, roomId: string, limit: number, head: number): Promise<SharedLatest> {
    const usersStamp = this.deps.users.stamp();
    const { rows, shadowed: shadowedRows } = await this.rows.read({ roomId, head, limit });
    const more = rows.length > limit;
    const page = more ? rows.slice(1) : rows;
    const [events, shadowedViews] = await Promise.all([this.deps.views.views(app, page), this.deps.views.views(app, shadowedRows)]);
    const cursor = updatesCursor(head);
    const tail = Buffer.from(`,"cursor":${JSON.stringify(cursor)},"more":${more},"itemcount":${events.length},"events":[${events.map(jsonOnce).join(',')}]}`);
    return {
      events,
      seqs: page.map((r) => r.seq as number),
      cursor,
      more,
      oldestSeq: page[0]?.seq ?? 0,
      tail,
      shadowed: shadowedRows.length > SHADOWED_HELD ? undefined : shadowedRows.map((r, i) => ({ seq: r.seq as number, view: shadowedViews[i] as EventView })),
      users: usersShown([...events, ...shadowedViews]),
      usersStamp,
    };
  }
}

/** Every user whose profile the events show: authors, listed reactors, and the same of the events they reply to. */
function usersShown(events: EventView[]): string[] {
  const ids = new Set<string>();
  const add = (view: EventView) => {
    if (view.userid !== null) ids.add(view.userid);
    for (const reaction of view.reactions) for (const user of reaction.users) ids.add(user.userid);
  };
  for (const event of events) {
    add(event);
    if (event.replyto !== null) add(event.replyto);
  }
  return [...ids];
}
