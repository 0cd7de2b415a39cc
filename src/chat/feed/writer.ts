import type { Application } from '../../apps/types.js';
import type { Db, Tx } from '../../db/client.js';
import { isDatabaseUnavailable, UNAVAILABLE_RETRY_MS } from '../../db/errors.js';
import { gatherWaiting } from '../../db/gather.js';
import { badRequest, notFound } from '../../errors.js';
import { newId } from '../../ids.js';
import type { Logger } from '../../logger.js';
import { assignSeqs, lockWaiting } from '../store/events.js';
import { appendToFeed, insertEvents, TargetsGone } from '../store/insert-events.js';
import type { WrittenNotification } from '../../events/publish-hooks.js';
import { insertReactionNotices, type ReactionNotice } from '../store/reaction-notices.js';
import { applyReactions, lastChanges, likesWith, type ReactionChange, type ReactionLimits, ReactionTypesFull } from '../store/reactions.js';
import { reserveSeqs } from '../store/rooms.js';
import type { ChatEvent, Room } from '../types.js';
import type { EventView } from '../views.js';
import { commitMetrics } from '../../metrics/registry.js';

/** One request's write: new events (entering the feed or waiting) and/or stored events to publish. */
export interface WriteJob {
  app: Application;
  room: Room;
  /** New events, complete rows; `seq` is filled in here for those that enter the feed. */
  inserts: ChatEvent[];
  /** False: the inserts wait outside the feed (pre-moderation, delay) with seq null. */
  enterFeed: boolean;
  /** Stored waiting events to give feed positions (moderation approval, delay release). */
  publishIds?: string[];
  /** A reaction event's change to its target: applied with the batch's other changes, before the inserts. */
  reaction?: ReactionChange;
  /** Extra statements in the same transaction, before the inserts. A job with one commits alone. */
  prepare?: (tx: Tx) => Promise<void>;
  /** Views of the inserts built before the commit (they do not depend on seq); others are built after. */
  views?: Map<string, EventView>;
}

export interface Written {
  job: WriteJob;
  /** The job's rows as committed: inserts in order, then published stored events by seq. */
  rows: ChatEvent[];
  /** Their views, set by `afterCommit`. */
  views: EventView[];
  /** Events the write changed in place, as it left them (the targets of a batch of likes): their views need no read. */
  changed?: ChatEvent[];
  /**
   * Set for a reaction's job: its write also wrote the notification of the reaction event (see
   * reaction-notices.ts), the one it wrote, or null when none was owed (a reaction to one's own
   * event, or one taken back).
   */
  notice?: WrittenNotification | null;
}

interface Pending {
  job: WriteJob;
  resolve: (written: Written) => void;
  reject: (err: unknown) => void;
}

/** One write sent to the database; `outcomes` is set when it returns. */
interface Flight {
  batch: Pending[];
  rooms: Set<string>;
  outcomes?: (Written | Error)[];
}

const MAX_BATCH = 1000;
/** While the database is unreachable, committed writes' views are tried again (UNAVAILABLE_RETRY_MS) for at most this long. */
const UNAVAILABLE_HOLD_MS = 30_000;
/** Writes in flight at once: the next one gathers and travels while the database commits the last. */
const PIPELINE_DEPTH = 2;
const MAX_TRACKED_ROOMS = 10_000;
const metrics = commitMetrics('chat_feed');
/** A job with statements of its own or stored events to publish commits alone. */
const commitsAlone = (job: WriteJob) => job.prepare !== undefined || job.publishIds !== undefined;

/**
 * Group commit for everything that enters a room's feed. Plain inserts that arrive together
 * share one write: per room, one statement that reserves the seqs and inserts every row
 * (reactions add their changes to the targets in the same transaction, a few statements per
 * batch). Jobs with statements of their own (edits, replies) or stored events to publish get a
 * transaction each. Two writes may be in flight; their results are published in seq order (see
 * `release`), and `afterCommit` (views, push) runs before any job's promise settles, so nothing
 * is answered before it is durable and visible to this node's pollers.
 */
export class FeedWriter {
  private readonly queue: Pending[] = [];
  /** In submission order. */
  private flights: Flight[] = [];
  private gathering = false;
  private releasing = false;
  private lastBatch = 0;
  /** The last seq this node published per room. */
  private readonly lastPublished = new Map<string, number>();

  constructor(
    private readonly db: Db,
    private readonly log: Logger,
    private readonly afterCommit: (written: Written[]) => Promise<void>,
    private readonly reactionLimits: ReactionLimits,
  ) {}

  submit(job: WriteJob): Promise<Written> {
    return new Promise((resolve, reject) => {
      this.queue.push({ job, resolve, reject });
      this.launch();
    });
  }

  private launch(): void {
    if (this.gathering || this.queue.length === 0 || this.flights.length >= PIPELINE_DEPTH) return;
    this.gathering = true;
    setImmediate(() => void this.gatherAndSend());
  }

  private async gatherAndSend(): Promise<void> {
    await gatherWaiting(this.queue, this.lastBatch);
    const batch = this.takeBatch();
    this.lastBatch = batch.length;
    const flight: Flight = { batch, rooms: new Set(batch.map((p) => p.job.room.id)) };
    this.flights.push(flight);
    this.gathering = false;
    this.launch();
    const first = batch[0] as Pending;
    const plain = batch.length > 1 || !commitsAlone(first.job);
    const started = performance.now();
    flight.outcomes = plain ? await this.appendPlain(batch) : await this.commitOne(first);
    metrics.observe(batch.length, started);
    void this.release();
  }

  /**
   * Publishes and answers finished writes in seq order. Writes return in the order they were
   * sent, except when a later one took a room's lock first (its seqs are then lower): a
   * finished write whose seqs do not follow the room's last published one waits for the later
   * writes to that room still in flight, and writes released together publish sorted by seq.
   */
  private async release(): Promise<void> {
    if (this.releasing) return;
    this.releasing = true;
    for (;;) {
      let n = 0;
      while (n < this.flights.length && (this.flights[n] as Flight).outcomes !== undefined) n++;
      while (n > 0 && this.mustWait(n)) n--;
      if (n === 0) break;
      const done = this.flights.splice(0, n);
      const outcomes = done.flatMap((f) => f.outcomes as (Written | Error)[]);
      const written = outcomes.filter((o): o is Written => !(o instanceof Error)).sort((a, b) => firstSeq(a) - firstSeq(b));
      await this.publishCommitted(written);
      this.notePublished(written);
      const batch = done.flatMap((f) => f.batch);
      outcomes.forEach((o, i) => (o instanceof Error ? (batch[i] as Pending).reject(o) : (batch[i] as Pending).resolve(o)));
      this.launch();
    }
    this.releasing = false;
  }

  /**
   * Views and push of committed writes. Their views may need the database (a reaction's target,
   * a user): while it is unreachable (a failover) they are tried again, as the requests wait
   * for them. Committed is committed: past that, or on any other failure, the requests succeed
   * with the views their jobs brought, and pollers reach the events through the database.
   */
  private async publishCommitted(written: Written[]): Promise<void> {
    const started = performance.now();
    for (;;) {
      try {
        await this.afterCommit(written);
        return;
      } catch (err) {
        if (!isDatabaseUnavailable(err) || performance.now() - started > UNAVAILABLE_HOLD_MS) {
          this.log.error({ err }, 'publishing committed chat events failed');
          return;
        }
        this.log.warn({ err }, 'publishing committed chat events: database unavailable, trying again');
        await new Promise((resolve) => setTimeout(resolve, UNAVAILABLE_RETRY_MS));
      }
    }
  }

  /** True when the finished flights before index `n` may hold seqs after those of an unfinished later flight. */
  private mustWait(n: number): boolean {
    const pending = this.flights.slice(n).filter((f) => f.outcomes === undefined);
    if (pending.length === 0) return false;
    const first = new Map<string, number>();
    for (const f of this.flights.slice(0, n)) {
      for (const o of f.outcomes as (Written | Error)[]) {
        if (o instanceof Error) continue;
        for (const row of o.rows) if (row.seq !== null && !(row.seq >= (first.get(row.roomId) ?? Infinity))) first.set(row.roomId, row.seq);
      }
    }
    for (const [roomId, seq] of first) {
      if (seq === (this.lastPublished.get(roomId) ?? NaN) + 1) continue;
      if (pending.some((f) => f.rooms.has(roomId))) return true;
    }
    return false;
  }

  private notePublished(written: Written[]): void {
    for (const w of written) for (const row of w.rows) if (row.seq !== null && !(row.seq <= (this.lastPublished.get(row.roomId) ?? -1))) this.lastPublished.set(row.roomId, row.seq);
    // Forgetting only costs a wait (an unknown predecessor is never assumed), so a full map is simply emptied.
    if (this.lastPublished.size > MAX_TRACKED_ROOMS) this.lastPublished.clear();
  }

  private takeBatch(): Pending[] {
    if (commitsAlone((this.queue[0] as Pending).job)) return this.queue.splice(0, 1);
    let n = 1;
    while (n < this.queue.length && n < MAX_BATCH && !commitsAlone((this.queue[n] as Pending).job)) n++;
    return this.queue.splice(0, n);
  }

  /**
   * Plain inserts: one statement per room (reserve + insert, atomic on its own), rooms in a fixed
   * order. When a room's statement fails, its jobs are tried one by one: only a job that fails on
   * its own fails its request (unless the database is out of reach: then every one would fail).
   */
  private async appendPlain(batch: Pending[]): Promise<(Written | Error)[]> {
    const byRoom = new Map<string, number[]>();
    batch.forEach((p, i) => {
      const list = byRoom.get(p.job.room.id);
      if (list === undefined) byRoom.set(p.job.room.id, [i]);
      else list.push(i);
    });
    const outcomes: (Written | Error)[] = new Array<Written | Error>(batch.length);
    for (const roomId of [...byRoom.keys()].sort()) {
      const indexes = byRoom.get(roomId) as number[];
      try {
        await this.appendSkippingGone(roomId, indexes, batch, outcomes);
      } catch (err) {
        const left = indexes.filter((i) => outcomes[i] === undefined);
        if (left.length === 1 || isDatabaseUnavailable(err)) {
          for (const i of left) outcomes[i] = asError(err);
          continue;
        }
        this.log.warn({ err, roomId, jobs: left.length }, 'chat batch failed; writing its jobs one by one');
        for (const i of left) await this.appendSkippingGone(roomId, [i], batch, outcomes).catch((e: unknown) => (outcomes[i] = asError(e)));
      }
    }
    return outcomes;
  }

  /**
   * Appends the jobs at `indexes` of the batch into `outcomes`. When reactions among them name
   * events gone from the room, or types their targets cannot take (nothing was written then),
   * those jobs fail (404, 400) and the others are appended again.
   */
  private async appendSkippingGone(roomId: string, indexes: number[], batch: Pending[], outcomes: (Written | Error)[]): Promise<void> {
    let left = indexes;
    while (left.length > 0) {
      try {
        const written = await this.appendToRoom(
          roomId,
          left.map((i) => (batch[i] as Pending).job),
        );
        left.forEach((i, k) => (outcomes[i] = written[k] as Written));
        return;
      } catch (err) {
        const refusal = (i: number) => refusalOf(err, roomId, (batch[i] as Pending).job.reaction);
        const [refused, kept] = partition(left, (i) => refusal(i) !== undefined);
        if (refused.length === 0) throw err;
        for (const i of refused) outcomes[i] = refusal(i) as Error;
        left = kept;
      }
    }
  }

  /**
   * One statement: the jobs' rows, those entering the feed numbered in order, with the likes among
   * the jobs applied to their targets in it; when some reaction is taken back, one transaction: all
   * the reaction changes, then that statement.
   */
  private async appendToRoom(roomId: string, jobs: WriteJob[]): Promise<Written[]> {
    const rows = jobs.flatMap((j) => j.inserts);
    let count = 0;
    const positions = jobs.flatMap((j) => j.inserts.map(() => (j.enterFeed ? ++count : null)));
    const reactions = lastChanges(jobs.flatMap((j) => (j.reaction === undefined ? [] : [j.reaction])));
    const room = (jobs[0] as WriteJob).room;
    const noticed = reactions.length === 0 ? undefined : { notices: reactionNoticesOf(jobs), added: new Date() };
    const appended =
      noticed === undefined
        ? await appendToFeed(this.db, roomId, rows, positions, count)
        : reactions.every((r) => r.reacted && r.type === 'like')
          ? await appendToFeed(this.db, roomId, rows, positions, count, likesWith(room, reactions, this.reactionLimits.shown, noticed))
          : await this.db.transaction(async (tx) => {
              await applyReactions(tx, roomId, reactions, this.reactionLimits);
              const done = await appendToFeed(tx, roomId, rows, positions, count);
              if (done === undefined) return undefined;
              return { ...done, notified: await insertReactionNotices(tx, room, noticed) };
            });
    if (appended === undefined) throw notFound(`Room ${roomId} not found.`);
    const last = appended.lastSeq;
    rows.forEach((row, k) => {
      const position = positions[k] as number | null;
      row.seq = position === null ? null : last - count + position;
    });
    if (noticed === undefined) return jobs.map((job) => ({ job, rows: job.inserts, views: [], changed: appended.changed }));
    const notified = new Map(appended.notified.map((n) => [n.eventId, n]));
    const noticeOf = (job: WriteJob): WrittenNotification | null => {
      const n = notified.get((job.inserts[0] as ChatEvent).id);
      return n === undefined ? null : { id: n.id, userId: n.userId, type: 'reaction', added: noticed.added };
    };
    return jobs.map((job) => ({ job, rows: job.inserts, views: [], changed: appended.changed, ...(job.reaction === undefined ? {} : { notice: noticeOf(job) }) }));
  }

  /** A job with its own statements or stored events to publish: one transaction. */
  private async commitOne(p: Pending): Promise<(Written | Error)[]> {
    return [await this.db.transaction((tx) => commit(tx, p.job)).catch(asError)];
  }
}

/**
 * The notifications a batch's reactions may owe, written with them (see reaction-notices.ts): one
 * for each reaction set (not taken back) whose event enters the feed, not shadowbanned.
 */
function reactionNoticesOf(jobs: WriteJob[]): ReactionNotice[] {
  const notices: ReactionNotice[] = [];
  for (const { reaction, inserts, enterFeed } of jobs) {
    if (reaction === undefined || !reaction.reacted || !enterFeed) continue;
    for (const row of inserts) if (!row.shadowban) notices.push({ id: newId(), eventId: row.id, targetId: reaction.eventId, userId: reaction.userId });
  }
  return notices;
}

/** The answer to a reaction its batch's statement refused on its own account, if it was one of them. */
function refusalOf(err: unknown, roomId: string, reaction: ReactionChange | undefined): Error | undefined {
  if (reaction === undefined) return undefined;
  if (err instanceof TargetsGone && err.ids.includes(reaction.eventId)) return notFound(`Event ${reaction.eventId} not found in room ${roomId}.`);
  if (err instanceof ReactionTypesFull && err.refuses(reaction)) {
    return badRequest('An event lists at most REACTION_TYPES_MAX distinct reactions besides like; this one would be one more.', {
      reaction: 'the event lists as many distinct reactions as it may',
    });
  }
  return undefined;
}

function partition<T>(items: T[], test: (item: T) => boolean): [T[], T[]] {
  const yes: T[] = [];
  const no: T[] = [];
  for (const item of items) (test(item) ? yes : no).push(item);
  return [yes, no];
}

const asError = (err: unknown): Error => (err instanceof Error ? err : new Error(String(err)));

/** The lowest feed position a write took, or -Infinity when it took none (its order does not matter). */
function firstSeq(w: Written): number {
  let min = Infinity;
  for (const row of w.rows) if (row.seq !== null && row.seq < min) min = row.seq;
  return min === Infinity ? -Infinity : min;
}

async function commit(tx: Tx, job: WriteJob): Promise<Written> {
  if (job.prepare !== undefined) await job.prepare(tx);
  const stored = job.publishIds === undefined ? [] : await lockWaiting(tx, job.room.id, job.publishIds);
  const count = (job.enterFeed ? job.inserts.length : 0) + stored.length;
  let seq = count === 0 ? 0 : (await reserveSeqs(tx, job.room.id, count)) - count + 1;
  if (job.enterFeed) for (const row of job.inserts) row.seq = seq++;
  const assigned = stored.map((id) => ({ id, seq: seq++ }));
  await insertEvents(tx, job.inserts);
  const published = new Map((await assignSeqs(tx, assigned)).map((row) => [row.id, row]));
  return { job, views: [], rows: [...job.inserts, ...stored.map((id) => published.get(id) as ChatEvent)] };
}
