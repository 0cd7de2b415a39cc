import type { Application } from '../../apps/types.js';
import type { Db, Tx } from '../../db/client.js';
import { notFound } from '../../http/errors.js';
import type { Logger } from '../../logger.js';
import type { ChatEvent, EventView, Room } from '../context.js';
import { assignSeqs, lockWaiting } from '../store/events.js';
import { appendToFeed, insertEvents } from '../store/insert-events.js';
import { reserveSeqs } from '../store/rooms.js';

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
}

interface Pending {
  job: WriteJob;
  resolve: (written: Written) => void;
  reject: (err: unknown) => void;
}

const MAX_BATCH = 1000;
const GATHER_TURNS = 3;
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Group commit for everything that enters a room's feed. Plain inserts that arrive while a
 * write is in flight (or within the same tick) share the next one: per room, one statement that
 * reserves the seqs and inserts every row. Jobs with statements of their own (reactions, edits)
 * or stored events to publish get a transaction each. One write at a time, so seqs reach the
 * push in order; `afterCommit` (views, push) runs before any job's promise settles, so nothing
 * is answered before it is durable and visible to this node's pollers.
 */
export class FeedWriter {
  private queue: Pending[] = [];
  private running = false;
  private lastBatch = 0;

  constructor(
    private readonly db: Db,
    private readonly log: Logger,
    private readonly afterCommit: (written: Written[]) => Promise<void>,
  ) {}

  submit(job: WriteJob): Promise<Written> {
    return new Promise((resolve, reject) => {
      this.queue.push({ job, resolve, reject });
      if (!this.running) {
        this.running = true;
        setImmediate(() => void this.drain());
      }
    });
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      // Clients answered by the last write send their next request about now: a moment's wait
      // lets them join this write instead of trailing in tiny writes of their own.
      for (let turn = 0; turn < GATHER_TURNS && this.queue.length < this.lastBatch / 2; turn++) await nextTurn();
      const batch = this.takeBatch();
      this.lastBatch = batch.length;
      const plain = batch.length > 1 || (batch[0] as Pending).job.prepare === undefined && (batch[0] as Pending).job.publishIds === undefined;
      const outcomes = plain ? await this.appendPlain(batch) : await this.commitOne(batch[0] as Pending);
      const written = outcomes.filter((o): o is Written => !(o instanceof Error));
      try {
        await this.afterCommit(written);
      } catch (err) {
        // Committed is committed: the requests succeed; pollers reach the events through the database.
        this.log.error({ err }, 'publishing committed chat events failed');
      }
      outcomes.forEach((o, i) => (o instanceof Error ? (batch[i] as Pending).reject(o) : (batch[i] as Pending).resolve(o)));
    }
    this.running = false;
  }

  private takeBatch(): Pending[] {
    const first = this.queue[0] as Pending;
    if (first.job.prepare !== undefined || first.job.publishIds !== undefined) return this.queue.splice(0, 1);
    let n = 1;
    while (n < this.queue.length && n < MAX_BATCH) {
      const j = (this.queue[n] as Pending).job;
      if (j.prepare !== undefined || j.publishIds !== undefined) break;
      n++;
    }
    return this.queue.splice(0, n);
  }

  /** Plain inserts: one statement per room (reserve + insert, atomic on its own), rooms in a fixed order. */
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
      const jobs = indexes.map((i) => (batch[i] as Pending).job);
      const rows = jobs.flatMap((j) => j.inserts);
      let count = 0;
      const positions = jobs.flatMap((j) => j.inserts.map(() => (j.enterFeed ? ++count : null)));
      try {
        const last = await appendToFeed(this.db, roomId, rows, positions, count);
        if (last === undefined) throw notFound(`Room ${roomId} not found.`);
        rows.forEach((row, k) => {
          const position = positions[k] as number | null;
          row.seq = position === null ? null : last - count + position;
        });
        indexes.forEach((i, k) => (outcomes[i] = { job: jobs[k] as WriteJob, rows: (jobs[k] as WriteJob).inserts, views: [] }));
      } catch (err) {
        for (const i of indexes) outcomes[i] = err instanceof Error ? err : new Error(String(err));
      }
    }
    return outcomes;
  }

  /** A job with its own statements or stored events to publish: one transaction. */
  private async commitOne(p: Pending): Promise<(Written | Error)[]> {
    try {
      return [await this.db.transaction((tx) => commit(tx, p.job))];
    } catch (err) {
      return [err instanceof Error ? err : new Error(String(err))];
    }
  }
}

async function commit(tx: Tx, job: WriteJob): Promise<Written> {
  if (job.prepare !== undefined) await job.prepare(tx);
  const stored = job.publishIds === undefined ? [] : await lockWaiting(tx, job.room.id, job.publishIds);
  const count = (job.enterFeed ? job.inserts.length : 0) + stored.length;
  let seq = count === 0 ? 0 : (await reserveSeqs(tx, job.room.id, count, new Date())) - count + 1;
  if (job.enterFeed) for (const row of job.inserts) row.seq = seq++;
  const assigned = stored.map((id) => ({ id, seq: seq++ }));
  await insertEvents(tx, job.inserts);
  const published = new Map((await assignSeqs(tx, assigned)).map((row) => [row.id, row]));
  return { job, views: [], rows: [...job.inserts, ...stored.map((id) => published.get(id) as ChatEvent)] };
}
