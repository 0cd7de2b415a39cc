import type { Application } from '../../apps/types.js';
import type { Db } from '../../db/client.js';
import type { Logger } from '../../logger.js';
import { internal, on, send } from '../../internal-messages.js';
import type { Bus } from '../../realtime/bus.js';
import type { FeedPage, LiveMessage } from '../../realtime/live.js';
import { SharedAnswers, withItsAnswer } from '../../shared-answers.js';
import { SingleFlight } from '../../single-flight.js';
import type { EventViews } from '../services/event-views.js';
import type { RoomDirectory } from '../services/room-directory.js';
import { displayable, feedAfter, feedBefore, feedTail } from '../store/events.js';
import type { Room } from '../types.js';
import type { UserService } from '../../users/service.js';
import type { EventView } from '../views.js';
import { readUpdatesCursor, updatesCursor } from './cursor.js';
import { CatchUpBlocks, type CatchUpDeps } from './catch-up.js';
import { FeedLeases } from './leases.js';
import { entryJson, RoomRing, type RingEntry } from './ring.js';
import { LatestPages, type SharedLatest } from './latest-pages.js';
import { roomOfFeedTopic } from './topics.js';

const RING_CAPACITY = 1000;
const MAX_RINGS = 1000;

export interface RoomFeedsDeps {
  db: Db;
  log: Logger;
  bus: Bus;
  rooms: RoomDirectory;
  views: EventViews;
  users: UserService;
  commits: CatchUpDeps['commits'];
  /** Bytes of shared catch-up blocks held (CATCH_UP_CACHE). */
  catchUpBytes: number;
  /** Bytes of shared first pages held (CROWD_READS_CACHE). */
  latestBytes: number;
}

export interface FeedRead {
  entries: RingEntry[];
  cursor: string;
  more: boolean;
  /** The ring the entries come from (its id), when they do. */
  ring?: number;
}

/** The newest displayable events; `tail` is the page (list.chatevents) as JSON after its room field when made once for many. */
export interface LatestPage {
  events: EventView[];
  cursor: string;
  more: boolean;
  oldestSeq: number;
  tail?: Buffer;
}

/** The feed's head `seq` and events `revision`, as a statement saw them. */
export interface FeedHead {
  seq: number;
  revision: number;
}

/** The shared page with the viewer's own shadow-banned events of its span in place: the newest `limit` of both. */
function withOwn(shared: SharedLatest, own: { seq: number; view: EventView }[], limit: number): LatestPage {
  const all = [...shared.seqs.map((seq, i) => ({ seq, view: shared.events[i] as EventView })), ...own].sort((x, y) => x.seq - y.seq);
  const kept = all.slice(-limit);
  return { events: kept.map((e) => e.view), cursor: shared.cursor, more: shared.more || all.length > limit, oldestSeq: kept[0]?.seq ?? 0 };
}

const visible = (view: EventView, viewer: string | undefined) => !view.shadowban || (viewer !== undefined && view.userid === viewer);

/**
 * The polling feed of rooms (`updates`) and its WebSocket resume. Recent events of rooms being
 * read are held in memory rings, fed by the bus in seq order; a node hears a room's events only
 * while it holds a lease on the room (see FeedLeases), so a ring is loaded once the lease's
 * topics reach the node and is dropped when the lease lapses or the bus reconnects. The database
 * answers when a ring cannot (cold room, lease not yet heard, cursor older than the ring, a hole,
 * another node ahead).
 */
export class RoomFeeds {
  private readonly rings = new Map<string, RoomRing>();
  private readonly loading = new SingleFlight<RoomRing>();
  private readonly leases: FeedLeases;
  /** With one node the bus delivers every commit here before its request is answered; with several, a poll checks the database head. */
  private readonly checkHead: boolean;
  private readonly latestPages: LatestPages;
  private readonly catchUp: CatchUpBlocks;
  /** Events JSON of ring reads many pollers share (see eventsJson). */
  private readonly pages: SharedAnswers<Buffer>;

  constructor(private readonly deps: RoomFeedsDeps) {
    const { bus } = deps;
    this.checkHead = bus.kind !== 'memory';
    this.latestPages = new LatestPages({ db: deps.db, log: deps.log, views: deps.views, users: deps.users, maxBytes: deps.latestBytes });
    this.catchUp = new CatchUpBlocks({ db: deps.db, log: deps.log, views: deps.views, commits: deps.commits, maxBytes: deps.catchUpBytes });
    this.pages = new SharedAnswers({ name: 'feed_page', maxBytes: deps.latestBytes, sizeOf: (page) => withItsAnswer(page.length) });
    on(bus, internal.roomRingReset, (_appId, roomId) => this.dropRing(roomId));
    this.leases = new FeedLeases(bus, (roomId) => this.dropRing(roomId));
    bus.onReconnect(() => {
      this.rings.clear();
      this.loading.reset();
    });
    bus.onMessage((_appId, message) => {
      const roomId = roomOfFeedTopic(message.topic);
      if (roomId === undefined) return;
      const ring = this.rings.get(roomId);
      const live = message.payload as LiveMessage;
      if (ring === undefined || live.type !== 'chat.event' || live.seq === undefined) return;
      ring.add({ seq: live.seq, view: live.data as EventView, cursor: live.cursor as string });
    });
  }

  /** After events were removed wholesale (reset, delete all): every node forgets the room's ring. */
  forget(app: Application, roomId: string): void {
    send(this.deps.bus, app.id, internal.roomRingReset, roomId);
  }

  /**
   * The newest displayable events as `viewer` sees them, oldest first, and the cursor that continues
   * after them, holding every event committed before `began` (performance.now()). A crowd shares
   * the room's head read and the page everyone sees (see LatestPages); a viewer's own shadow-banned
   * events and reactions are added to it.
   */
  async latest(app: Application, room: Room, limit: number, viewer: string | undefined, began: number): Promise<LatestPage> {
    const head = await this.catchUp.head(app, room.id, began);
    return this.seenBy(app, room.id, limit, viewer, await this.latestPages.page(app, room.id, limit, head), head.seq);
  }

  /**
   * `latest` as everyone without a view of their own sees it (no shadow-banned or reacted events
   * of theirs: a user new to the app), up to the feed's head as a join's statement saw it.
   */
  async latestShared(app: Application, room: Room, limit: number, head: FeedHead): Promise<LatestPage> {
    return this.seenBy(app, room.id, limit, undefined, await this.latestPages.page(app, room.id, limit, head), head.seq);
  }

  private async seenBy(app: Application, roomId: string, limit: number, viewer: string | undefined, shared: SharedLatest, head: number): Promise<LatestPage> {
    const page: LatestPage = { events: shared.events, cursor: shared.cursor, more: shared.more, oldestSeq: shared.oldestSeq, tail: shared.tail };
    if (viewer === undefined) return page;
    if (shared.shadowed === undefined) return this.latestFor(app, roomId, limit, viewer, head);
    const own = shared.shadowed.filter((e) => e.view.userid === viewer);
    const mine = own.length === 0 ? page : withOwn(shared, own, limit);
    const events = await this.deps.views.forViewer(app, viewer, mine.events);
    return events === shared.events ? page : { ...mine, events, tail: undefined };
  }

  /** The page as `viewer` sees it, read for them alone: a page everyone shares holds too many shadow-banned events to look for theirs in it. */
  private async latestFor(app: Application, roomId: string, limit: number, viewer: string, head: number): Promise<LatestPage> {
    const rows = await feedBefore(this.deps.db, roomId, displayable(viewer), head + 1, limit + 1);
    const more = rows.length > limit;
    const page = more ? rows.slice(1) : rows;
    return { events: await this.deps.views.views(app, page, viewer), cursor: updatesCursor(head), more, oldestSeq: page[0]?.seq ?? 0 };
  }

  /** Every feed event after `cursor`, oldest first (non-displayable ones too). */
  async after(app: Application, room: Room, cursor: string, limit: number, viewer: string | undefined): Promise<FeedRead> {
    const seq = readUpdatesCursor(cursor);
    const now = Date.now();
    // Until the room's feed reaches this node, a ring could miss events.
    if (!this.leases.renew(app.id, room.id, now)) return this.fromStore(app, room.id, seq, cursor, limit, viewer);
    const ring = await this.ring(app, room.id);
    // A crowd polling on a cluster shares the head read of its wave (the resumes' one).
    const behind = this.checkHead && ring.last < (await this.catchUp.head(app, room.id, performance.now())).seq;
    const usable = ring.usable(now);
    if (!usable) this.rings.delete(room.id);
    const held = behind || !usable ? undefined : ring.after(seq);
    if (held === undefined) return this.fromStore(app, room.id, seq, cursor, limit, viewer);
    const entries: RingEntry[] = [];
    let examined = seq;
    for (const entry of held) {
      if (entries.length === limit) return { entries, cursor: updatesCursor(examined), more: true, ring: ring.id };
      examined = entry.seq;
      if (visible(entry.view, viewer)) entries.push(entry);
    }
    return { entries, cursor: ring.last > seq ? updatesCursor(ring.last) : cursor, more: false, ring: ring.id };
  }

  /**
   * The events of a read as JSON (`entryJson` of each, comma-separated). A ring's read that shows
   * no shadow-banned event is the same for everyone polling from its first to its last seq (a
   * shadow-banned author's own events make theirs differ): made once and shared as bytes.
   */
  async eventsJson(read: FeedRead): Promise<string | Buffer> {
    const { entries, ring } = read;
    const join = () => entries.map(entryJson).join(',');
    if (ring === undefined || entries.length === 0 || entries.some((e) => e.view.shadowban)) return join();
    const key = `${ring}/${(entries[0] as RingEntry).seq}/${(entries.at(-1) as RingEntry).seq}/${entries.length}`;
    return this.pages.take(key, { version: '' }, async () => Buffer.from(join()));
  }

  async assertExists(app: Application, id: string): Promise<void> {
    await this.deps.rooms.require(app, id);
  }

  /** The feed after `cursor` for a resume that began at `began` (performance.now()), from the blocks a resuming crowd shares. */
  async since(app: Application, id: string, cursor: string, limit: number, began: number): Promise<FeedPage> {
    const room = await this.deps.rooms.require(app, id);
    if (cursor === '') {
      const { seq } = await this.catchUp.head(app, room.id, began);
      return { items: [], cursor: updatesCursor(seq), seq };
    }
    return this.catchUp.after(app, room.id, readUpdatesCursor(cursor), cursor, limit, began);
  }

  /** What the ring cannot serve: from the shared catch-up blocks, or for a viewer (who may see shadow-banned events of their own) from the database. */
  private async fromStore(app: Application, roomId: string, seq: number, cursor: string, limit: number, viewer: string | undefined): Promise<FeedRead> {
    if (viewer !== undefined) return this.fromDb(app, roomId, seq, cursor, limit, viewer);
    const page = await this.catchUp.after(app, roomId, seq, cursor, limit + 1, performance.now());
    const more = page.items.length > limit;
    const items = more ? page.items.slice(0, limit) : page.items;
    const entries = items.map((item) => ({ seq: item.seq as number, view: item.data as EventView, cursor: item.cursor as string }));
    return { entries, cursor: more ? (entries.at(-1) as RingEntry).cursor : page.cursor, more };
  }

  private async fromDb(app: Application, roomId: string, seq: number, cursor: string, limit: number, viewer: string | undefined): Promise<FeedRead> {
    const slice = await feedAfter(this.deps.db, roomId, seq, limit + 1, viewer);
    const more = slice.events.length > limit;
    const rows = more ? slice.events.slice(0, limit) : slice.events;
    const views = await this.deps.views.views(app, rows, viewer);
    const entries = rows.map((r, i) => ({ seq: r.seq as number, view: views[i] as EventView, cursor: updatesCursor(r.seq as number) }));
    const end = more ? (entries.at(-1) as RingEntry).seq : slice.lastSeq;
    return { entries, cursor: end === seq ? cursor : updatesCursor(end), more };
  }

  private dropRing(roomId: string): void {
    this.rings.delete(roomId);
    this.loading.invalidate(roomId);
  }

  /**
   * The room's ring once loaded. A ring is registered before its load reads (see `load`); handed
   * out then, it would look unusable and be dropped, and on a long feed, where the load takes a
   * while, every poll dropped the ring the one before had started loading, forever.
   */
  private async ring(app: Application, roomId: string): Promise<RoomRing> {
    const held = this.rings.get(roomId);
    return held !== undefined && held.last >= 0 ? held : this.loading.run(roomId, () => this.load(app, roomId));
  }

  private async load(app: Application, roomId: string): Promise<RoomRing> {
    const ring = new RoomRing(RING_CAPACITY);
    // Registered before reading, so events published meanwhile wait in the ring.
    if (this.rings.size >= MAX_RINGS) this.rings.delete(this.rings.keys().next().value as string);
    this.rings.set(roomId, ring);
    try {
      const tail = await feedTail(this.deps.db, roomId, RING_CAPACITY);
      const views = await this.deps.views.views(app, tail.events);
      ring.loaded(
        tail.lastSeq,
        Math.max(0, tail.lastSeq - RING_CAPACITY),
        tail.events.map((r, i) => ({ seq: r.seq as number, view: views[i] as EventView, cursor: updatesCursor(r.seq as number) })),
      );
      return ring;
    } catch (err) {
      this.rings.delete(roomId);
      throw err;
    }
  }
}
