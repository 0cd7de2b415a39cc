import type { Application } from '../../apps/types.js';
import type { UserService } from '../../users/service.js';
import type { EventView } from '../views.js';
import type { FeedHead, LatestPage } from './feed.js';

/** Pages held at most (one per room and page size); past it they start over. */
const MOST_PAGES = 1000;

interface SharedPage {
  /** When the head the page was read up to was seen (performance.now()). */
  seenAt: number;
  seq: number;
  revision: number;
  /** The users' stamp taken before the page's views were made, or before it was last found current. */
  usersStamp: number;
  /** The users the page shows, once it is made. */
  users?: string[];
  page: Promise<LatestPage>;
}

/**
 * The page of a room's newest events that users new to the app get when they join, read and
 * serialised once for the crowd joining. A join takes the page held for its room when
 * - the page's head was seen after the join's request began: it holds every event committed
 *   before the request, as a read of its own would; or
 * - the page was read up to the head and events revision that the join's own statement saw, and
 *   none of the users it shows changed since, as far as this node can know (not while the bus is
 *   down). Then nothing it shows can differ from a read now: new events move the head, changes and
 *   deletions in place move the revision (a trigger on chat_events, whichever node made them), and
 *   the users come from the users' cache, whose changes every node hears of.
 * So a crowd joining a room at kickoff shares one page for as long as the room is quiet, not one
 * per batch of joins (a page of 50 events cost a batch a read, 2,500 values parsed and 50 KB of JSON).
 */
export class SharedPages {
  private readonly pages = new Map<string, SharedPage>();

  constructor(private readonly users: UserService) {}

  /** The page for a join whose request began at `since` and whose statement saw `head`; `read` reads it up to `head`. */
  take(app: Application, roomId: string, limit: number, since: number, head: FeedHead, read: () => Promise<LatestPage>): Promise<LatestPage> {
    const key = `${roomId}/${limit}`;
    const held = this.pages.get(key);
    if (held !== undefined && (held.seenAt >= since || this.stillCurrent(app, held, head))) return held.page;
    const shared: SharedPage = { seenAt: head.seenAt, seq: head.seq, revision: head.revision, usersStamp: this.users.stamp(), page: read() };
    if (this.pages.size >= MOST_PAGES) this.pages.clear();
    this.pages.set(key, shared);
    shared.page.then(
      (made) => {
        shared.users = usersShown(made.events);
      },
      () => {
        if (this.pages.get(key) === shared) this.pages.delete(key);
      },
    );
    return shared.page;
  }

  private stillCurrent(app: Application, held: SharedPage, head: FeedHead): boolean {
    if (held.seq !== head.seq || held.revision !== head.revision || held.users === undefined) return false;
    const now = this.users.stamp();
    if (!this.users.unchangedSince(app, held.users, held.usersStamp)) return false;
    // Current as of now: the next join of the crowd need only look at changes after this.
    held.usersStamp = now;
    return true;
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
