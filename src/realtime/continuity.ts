import type { Application } from '../apps/types.js';
import type { Logger } from '../logger.js';
import { gapMetrics } from '../metrics/registry.js';
import type { LiveMessage } from './live.js';
import type { Replay, Topic } from './topics.js';

/** A fill reads the feed in pages of this size. */
const FILL_PAGE = 500;
/** Topics filled at once after the bus comes back, so that a node holding many does not flood the database. */
const RESYNC_CONCURRENCY = 8;

/** Delivers one item to this node's subscribers; `prev` is the seq of the item delivered before it on the topic. */
export type Publish = (appId: string, topic: string, message: LiveMessage, prev: number | undefined) => void;

interface Followed {
  key: string;
  app: Application;
  topic: Topic;
  replay: Replay;
  /** Every seq up to this one was delivered or is one subscribers may not see; undefined until the head is known. */
  settled: number | undefined;
  /** The feed cursor at `settled`. */
  cursor: string | undefined;
  /** Seq of the last item delivered (the next one's `prev`). */
  delivered: number | undefined;
  /** The feed's head when the node began to follow the topic. */
  head: number | undefined;
  /** Items that came past a hole, by seq, waiting for the fill. */
  held: Map<number, LiveMessage>;
  filling: Promise<number> | undefined;
  /** A hole opened again while a fill ran. */
  again: boolean;
}

export interface Resync {
  topics: number;
  filled: number;
}

/**
 * Keeps every resumable topic this node serves contiguous. Bus pub/sub loses what is published
 * while a link is down, and two nodes publish one room out of order; the feed has it all. Per
 * topic the node knows how far it delivered; an item that skips ahead waits while the missing
 * range is read from the feed (the kind's `replay`), once per topic however many sockets hold
 * it, and delivered in order before it. After the bus comes back every topic is read the same
 * way. Items subscribers may not see (shadow-banned, deleted) are absent from the feed's pages
 * but advance its cursor: the next delivered item's `prev` names the item before it, so a
 * client knows the hole is not a loss.
 */
export class TopicContinuity {
  private readonly followed = new Map<string, Followed>();

  constructor(
    private readonly publish: Publish,
    private readonly log: Logger,
  ) {}

  /** The node follows a topic (its first holder): a resumable one is tracked from the feed's head. */
  follow(key: string, app: Application, topic: Topic): void {
    const replay = topic.def.replay;
    if (replay === undefined) return;
    const f: Followed = { key, app, topic, replay, settled: undefined, cursor: undefined, delivered: undefined, head: undefined, held: new Map(), filling: undefined, again: false };
    this.followed.set(key, f);
    replay(app, topic.id, '', 1, performance.now()).then(
      (head) => {
        if (this.followed.get(key) !== f || f.settled !== undefined || head.seq === undefined) return;
        f.head = head.seq;
        f.settled = head.seq;
        f.cursor = head.cursor;
      },
      (err: unknown) => this.log.warn({ err, topic: topic.name }, 'reading the head of a live topic failed; it is tracked from its next item'),
    );
  }

  /** The node let go of the topic (its last holder). */
  unfollow(key: string): void {
    this.followed.delete(key);
  }

  /** Takes a bus item of a tracked topic (true), delivering it now, later, or never when it came already; false for any other. */
  receive(key: string, message: LiveMessage): boolean {
    const f = this.followed.get(key);
    const seq = message.seq;
    if (f === undefined || seq === undefined) return false;
    if (f.settled === undefined) this.deliver(f, message);
    else if (seq <= f.settled) this.late(f, message);
    // Released in order once the fill is read.
    else if (f.filling !== undefined) f.held.set(seq, message);
    else if (seq === f.settled + 1) this.deliver(f, message);
    else {
      f.held.set(seq, message);
      void this.fill(f);
    }
    return true;
  }

  /** After the bus came back: every tracked topic read from where it stopped. */
  async resync(): Promise<Resync> {
    const all = [...this.followed.values()];
    let filled = 0;
    const worker = async () => {
      for (let f = all.pop(); f !== undefined; f = all.pop()) filled += await this.fill(f);
    };
    const topics = all.length;
    await Promise.all(Array.from({ length: RESYNC_CONCURRENCY }, worker));
    return { topics, filled };
  }

  /** Resolves with the number of items the fill delivered; one fill per topic at a time (a hole found meanwhile reads again after it). */
  private fill(f: Followed): Promise<number> {
    if (f.filling !== undefined) {
      f.again = true;
      return f.filling;
    }
    gapMetrics.fills.inc();
    const run = this.readMissing(f).finally(() => {
      f.filling = undefined;
    });
    f.filling = run;
    return run;
  }

  private async readMissing(f: Followed): Promise<number> {
    let filled = 0;
    let unmoved = 0;
    do {
      f.again = false;
      const from = f.settled;
      try {
        filled += await this.readFeed(f);
      } catch (err) {
        this.log.warn({ err, topic: f.topic.name }, 'filling a hole in a live topic failed; its subscribers resume from their cursors');
        this.release(f, true);
        break;
      }
      unmoved = f.settled === from ? unmoved + 1 : 0;
      // A held item was committed before it was published, so a second read finds it; a feed that still does not move will not fill the hole.
      this.release(f, unmoved >= 2);
    } while (f.again && this.followed.get(f.key) === f);
    gapMetrics.filledEvents.inc(filled);
    return filled;
  }

  /** Delivers every item after the settled position, page by page; returns how many. */
  private async readFeed(f: Followed): Promise<number> {
    let filled = 0;
    for (;;) {
      const cursor = f.cursor;
      if (cursor === undefined) return filled;
      const page = await f.replay(f.app, f.topic.id, cursor, FILL_PAGE, performance.now());
      if (this.followed.get(f.key) !== f) return filled;
      for (const item of page.items) {
        if (item.seq === undefined || (f.settled !== undefined && item.seq <= f.settled)) continue;
        this.deliver(f, item);
        filled++;
      }
      if (page.seq !== undefined && (f.settled === undefined || page.seq > f.settled)) {
        f.settled = page.seq;
        f.cursor = page.cursor;
      }
      if (page.items.length < FILL_PAGE) return filled;
    }
  }

  /**
   * Held items that now follow on go out in order; one past a hole asks for another read, or goes
   * out anyway (`force`: the feed could not be read) without a `prev`, so that subscribers do not
   * take the hole for items they may not see and resume from their cursors instead.
   */
  private release(f: Followed, force: boolean): void {
    for (const seq of [...f.held.keys()].sort((a, b) => a - b)) {
      const message = f.held.get(seq) as LiveMessage;
      if (f.settled !== undefined && seq <= f.settled) f.held.delete(seq);
      else if (f.settled === undefined || seq === f.settled + 1) {
        f.held.delete(seq);
        this.deliver(f, message);
      } else if (force) {
        f.held.delete(seq);
        this.deliver(f, message, false);
      } else {
        f.again = true;
        return;
      }
    }
  }

  /** An item committed before the head was read but published after: not a repeat, as nothing delivered it yet. */
  private late(f: Followed, message: LiveMessage): void {
    const seq = message.seq as number;
    if (f.head === undefined || seq > f.head || seq <= (f.delivered ?? Number.NEGATIVE_INFINITY)) return;
    const prev = f.delivered;
    f.delivered = seq;
    this.publish(f.app.id, f.topic.name, message, prev);
  }

  /** `contiguous`: every item between the last one delivered and this one is one subscribers may not see. */
  private deliver(f: Followed, message: LiveMessage, contiguous = true): void {
    // Before anything was delivered, the head the node started from: subscribers hold everything up to it (their replay) or may not see it.
    const prev = contiguous ? (f.delivered ?? f.head) : undefined;
    f.settled = message.seq;
    f.delivered = message.seq;
    f.cursor = message.cursor;
    this.publish(f.app.id, f.topic.name, message, prev);
  }
}
