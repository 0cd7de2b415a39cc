import type { Bus } from '../../realtime/bus.js';
import { feedTopic } from './topics.js';

/** A room read on this node keeps the node listening to its feed this long after the last read. */
const IDLE_MS = 30_000;
const SWEEP_MS = 5_000;

interface Lease {
  releases: (() => void)[];
  until: number;
  /** Both feed topics of the room reach this node. */
  listening: boolean;
}

/**
 * The rooms whose feed is read on this node (polls, resumes). While a room is read, and IDLE_MS
 * after, the node takes an interest in both its feed topics (the room's and its shadow-banned
 * events'), so that the room's memory ring hears every event; `ended` is told when a lease lapses.
 */
export class FeedLeases {
  private readonly leases = new Map<string, Lease>();
  private sweeper: NodeJS.Timeout | undefined;

  constructor(
    private readonly bus: Bus,
    private readonly ended: (roomId: string) => void,
  ) {}

  /** Renews the room's lease, taking one when there is none; true once the room's feed reaches this node. */
  renew(appId: string, roomId: string, now: number): boolean {
    const lease = this.leases.get(roomId);
    if (lease === undefined) {
      this.take(appId, roomId, now);
      return false;
    }
    lease.until = now + IDLE_MS;
    return lease.listening;
  }

  private take(appId: string, roomId: string, now: number): void {
    const topics = [feedTopic(roomId, false), feedTopic(roomId, true)];
    const lease: Lease = { releases: topics.map((topic) => this.bus.interest(appId, topic)), until: now + IDLE_MS, listening: false };
    this.leases.set(roomId, lease);
    void Promise.all(topics.map((topic) => this.bus.listening(appId, topic))).then(() => {
      lease.listening = true;
    });
    this.sweeper ??= setInterval(() => this.sweep(), SWEEP_MS).unref();
  }

  private sweep(): void {
    const now = Date.now();
    for (const [roomId, lease] of this.leases) {
      if (lease.until > now) continue;
      this.leases.delete(roomId);
      for (const release of lease.releases) release();
      this.ended(roomId);
    }
    if (this.leases.size > 0) return;
    clearInterval(this.sweeper);
    this.sweeper = undefined;
  }
}
