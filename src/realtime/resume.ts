import type { Application } from '../apps/types.js';
import { eventFrame, type Delivery, type LiveHub } from './hub.js';
import type { LiveMessage } from './live.js';
import { Refusal } from './refusal.js';
import type { Replay, Topic } from './topics.js';
import { TurnShare } from './turn-share.js';

/** Replay reads the feed in pages of this size, at most MAX_REPLAY_PAGES of them (MAX_REPLAY events). */
const REPLAY_PAGE = 500;
const MAX_REPLAY_PAGES = 10;
export const MAX_REPLAY = REPLAY_PAGE * MAX_REPLAY_PAGES;
/**
 * After a replay the subscriber keeps filtering by seq until a live item past the replay comes, at
 * most this long, before it takes the topic's deliveries unfiltered: an event committed before the
 * replay query may still be on its way from another node.
 */
const RESUME_GRACE_MS = 2_000;

/** Replayed frames go out in slices of this many, the event loop free between slices: live posting keeps its latency while a crowd catches up. */
const REPLAY_SLICE = 100;
/** Every replay of this node shares the loop: a turn sends at most this many replayed items in all (about 2 MB of chat events). */
const REPLAYED_PER_TURN = 2_000;
const turns = new TurnShare(REPLAYED_PER_TURN);
/** A subscriber holding more unsent bytes than this gets the next slice only once it has taken some in. */
const REPLAY_UNSENT_BYTES = 256 * 1024;
const UNSENT_POLL_MS = 5;
const UNSENT_PATIENCE_MS = 10_000;

/** Whoever resumes a topic (a WebSocket, an event stream): how to reach it and what it holds. */
export interface ResumeTarget {
  /** False once the subscriber is gone or let go of the topic: the resume stops there. */
  active(): boolean;
  /** The cursor proved valid and near enough; called before the replayed items. */
  confirmed(): void;
  deliver(delivery: Delivery): void;
  /** Live items that came during the replay, to go out together (one write). */
  deliverAll(deliveries: Delivery[]): void;
  /**
   * A slice of the replay, to go out together (one write). Slices are aligned on seq (REPLAY_SLICE),
   * so subscribers resuming from different places share every slice but their first. `prev` is the
   * seq of the item before the slice in this subscriber's stream.
   */
  replayed(items: readonly LiveMessage[], prev: number | undefined): void;
  /** Bytes sent to the subscriber that it has not taken in yet. */
  unsent(): number;
  /** The grace period is over: the subscriber takes the topic's deliveries directly from now on. */
  caughtUp(): void;
  /** Keeps the function that stops the resume (unsubscribe, close); undefined once it is over. */
  stopWith(stop: (() => void) | undefined): void;
}

/**
 * Listens to the live topic first and buffers, replays the feed after the cursor, delivers the
 * buffered items the replay did not hold, then forwards live items filtered by seq until one past
 * the replay goes out or the grace period ends. No gap, no repeat. Refused (before anything is delivered) when the cursor is
 * invalid or more than MAX_REPLAY events behind. However it ends before the hand-over, its
 * listener is let go.
 */
export async function resumeTopic(hub: LiveHub, app: Application, topic: Topic, replay: Replay, cursor: string, target: ResumeTarget): Promise<void> {
  const buffer: Delivery[] = [];
  const sent = new Set<number>();
  let replayedUpTo = -Infinity;
  let live = false;
  /** Not replayed nor delivered yet: marked as delivered. */
  const fresh = (d: Delivery) => {
    if (d.seq !== undefined && (d.seq <= replayedUpTo || sent.has(d.seq))) return false;
    if (d.seq !== undefined) sent.add(d.seq);
    return true;
  };
  let timer: NodeJS.Timeout | undefined;
  let handingOver = false;
  const handOver = () => {
    if (!target.active()) return;
    target.caughtUp();
    stop();
  };
  /**
   * A topic's live items reach this node's subscribers in seq order (TopicContinuity), so once one
   * past the replay went out, none to come can repeat what was sent: the filter is done. Handed
   * over after the delivery at hand (a subscriber's new listener must not be given it again).
   */
  const handOverAfter = (d: Delivery) => {
    if (handingOver || d.seq === undefined || d.seq <= replayedUpTo) return;
    handingOver = true;
    clearTimeout(timer);
    queueMicrotask(handOver);
  };
  const forward = (d: Delivery) => {
    if (!fresh(d)) return;
    target.deliver(d);
    handOverAfter(d);
  };
  const stopIntercepting = hub.intercept(app.id, topic.name, (d) => (live ? forward(d) : buffer.push(d)));
  const began = performance.now();
  const stop = () => {
    stopIntercepting();
    clearTimeout(timer);
    target.stopWith(undefined);
  };
  target.stopWith(stop);
  let resumed = false;
  try {
    const { items, from } = await missed(app, topic, replay, cursor, began);
    if (!target.active()) return;
    // The subscriber holds everything up to its cursor: what comes live up to there repeats it.
    if (from !== undefined) replayedUpTo = from;
    target.confirmed();
    // Each frame names the seq of the one before it in this subscriber's stream (its cursor's for the first).
    let prev = from;
    for (const slice of alignedSlices(items)) {
      if (!(await roomFor(target, slice.length))) return;
      target.replayed(slice, prev);
      for (const item of slice) if (item.seq !== undefined) replayedUpTo = Math.max(replayedUpTo, item.seq);
      prev = slice.at(-1)?.seq;
    }
    live = true;
    const held = buffer.splice(0).filter(fresh);
    if (held.length > 0) target.deliverAll(held);
    timer = setTimeout(handOver, RESUME_GRACE_MS);
    const last = held.at(-1);
    if (last !== undefined) handOverAfter(last);
    resumed = true;
  } finally {
    if (!resumed) stop();
  }
}

/**
 * Waits, while the subscriber holds too much unsent, for it to take some in (at most
 * UNSENT_PATIENCE_MS: past that the next slice goes, and a subscriber past its backpressure limit
 * is closed as a slow consumer), then for a turn of the loop with room for `items`; false once it is gone.
 */
async function roomFor(target: ResumeTarget, items: number): Promise<boolean> {
  const until = performance.now() + UNSENT_PATIENCE_MS;
  while (target.active() && target.unsent() > REPLAY_UNSENT_BYTES && performance.now() < until) await new Promise((resolve) => setTimeout(resolve, UNSENT_POLL_MS));
  if (target.active()) await turns.take(items);
  return target.active();
}

/** The items in slices that end where seq reaches a multiple of REPLAY_SLICE (items without seq, REPLAY_SLICE at a time). */
function* alignedSlices(items: readonly LiveMessage[]): Generator<readonly LiveMessage[]> {
  const group = (item: LiveMessage | undefined) => (item?.seq === undefined ? undefined : Math.ceil(item.seq / REPLAY_SLICE));
  for (let start = 0; start < items.length; ) {
    const first = group(items[start]);
    let end = start + 1;
    if (first === undefined) end = Math.min(items.length, start + REPLAY_SLICE);
    else while (end < items.length && group(items[end]) === first) end++;
    yield items.slice(start, end);
    start = end;
  }
}

/**
 * Replayed items are shared by every subscriber resuming the topic (see CatchUpBlocks): so is each
 * one's frame, for every subscriber whose stream had the same item before it (all but those whose
 * replay starts at it).
 */
const frames = new WeakMap<LiveMessage, { topic: string; prev: number | undefined; frame: Buffer }>();

/** A replayed slice's frames for a plain subscriber: each item's frame, made once for the subscribers it fits. */
export function replayFrames(topic: string, slice: readonly LiveMessage[], prev: number | undefined): Buffer[] {
  return slice.map((item, i) => replayFrame(topic, item, i === 0 ? prev : slice[i - 1]?.seq));
}

function replayFrame(topic: string, item: LiveMessage, prev: number | undefined): Buffer {
  const made = frames.get(item);
  if (made !== undefined && made.topic === topic && made.prev === prev) return made.frame;
  const frame = Buffer.from(eventFrame(topic, item, prev));
  frames.set(item, { topic, prev, frame });
  return frame;
}

/** Every item after the cursor, read before anything is sent, and the seq the cursor stood at; refused when more than MAX_REPLAY. */
async function missed(app: Application, topic: Topic, replay: Replay, cursor: string, began: number): Promise<{ items: LiveMessage[]; from: number | undefined }> {
  const missed: LiveMessage[] = [];
  let position = cursor;
  let from: number | undefined;
  for (;;) {
    // Past MAX_REPLAY one item is enough to know the cursor is too far behind.
    const limit = missed.length < MAX_REPLAY ? Math.min(REPLAY_PAGE, MAX_REPLAY - missed.length) : 1;
    const page = await replay(app, topic.id, position, limit, began);
    if (missed.length >= MAX_REPLAY && page.items.length > 0) {
      throw new Refusal('bad_request', `The cursor is more than ${MAX_REPLAY} events behind; catch up through the REST updates feed, then subscribe with its cursor.`);
    }
    from ??= page.from;
    missed.push(...page.items);
    position = page.cursor;
    if (page.items.length < limit) return { items: missed, from };
  }
}
