import { Cluster } from 'ioredis';
import type { Logger } from '../logger.js';
import type { PubSubMode, RedisClient } from '../redis.js';

/** How long a channel stays subscribed after its last interest is released, so a topic that comes and goes does not churn. */
const LINGER_MS = 5_000;
/** Sweeps are at least this far apart (each looks at every channel). */
const SWEEP_GRAIN_MS = 500;
/** Channels per SUBSCRIBE or UNSUBSCRIBE command (sharded: one per command, as a Redis Cluster needs the channels of one command to share a slot). */
const BATCH = 1000;

const resolved = Promise.resolve();

interface Channel {
  interests: number;
  /** When the last interest was released (ms); 0 while one is held. */
  idleSince: number;
  /** Redis has answered the subscription on the current connection (a refusal is logged: waiting longer would not help). */
  answered: boolean;
  /** Callers of `listening` waiting for `answered`. */
  waiters: (() => void)[] | undefined;
}

/**
 * The topic channels one node subscribes to, on a connection of their own: counted interests,
 * subscriptions sent to Redis once per event-loop turn, a channel kept LINGER_MS after its last
 * release, every channel subscribed again when the connection comes back.
 */
export class TopicChannels {
  private readonly channels = new Map<string, Channel>();
  private readonly pending = new Set<string>();
  private flushing: NodeJS.Immediate | undefined;
  private sweeping: NodeJS.Timeout | undefined;
  /** Counts connections, so that a late answer from a lost one changes nothing. */
  private epoch = 0;
  /** Every channel is subscribed on the current connection. */
  whole = false;

  constructor(
    private readonly conn: RedisClient,
    private readonly mode: PubSubMode,
    private readonly log: Logger,
    private readonly onWhole: () => void,
  ) {
    conn.on('ready', () => {
      const epoch = this.epoch;
      // On the next turn: after the commands ioredis sends again on its own (an unsubscribe cut off by the outage, say).
      setImmediate(() => {
        if (epoch !== this.epoch) return;
        void this.subscribeAll(epoch);
      });
    });
    conn.on('close', () => this.lost());
    if (conn instanceof Cluster) {
      // A cluster client stays ready while one master is away; the master's subscriber ends
      // (`-node`), and ioredis starts a new one after each refresh of the slot map (`subscribersReady`).
      conn.on('-node', () => this.lost());
      conn.on('subscribersReady', () => {
        if (!this.whole) void this.subscribeAll(this.epoch);
      });
    }
  }

  hold(name: string): () => void {
    let channel = this.channels.get(name);
    if (channel === undefined) {
      channel = { interests: 0, idleSince: 0, answered: false, waiters: undefined };
      this.channels.set(name, channel);
      this.pending.add(name);
      this.flushing ??= setImmediate(() => this.flush());
    }
    channel.interests++;
    channel.idleSince = 0;
    const held = channel;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (--held.interests > 0) return;
      held.idleSince = Date.now();
      if (this.sweeping === undefined) this.sweeping = setTimeout(() => this.sweep(), LINGER_MS).unref();
    };
  }

  listening(name: string): Promise<void> {
    const channel = this.channels.get(name);
    // While a subscription is lost, what is published meanwhile is read from the feed once it is back.
    if (channel === undefined || channel.answered || !this.whole || this.conn.status !== 'ready') return resolved;
    return new Promise((resolve) => {
      channel.waiters ??= [];
      channel.waiters.push(resolve);
    });
  }

  close(): void {
    clearImmediate(this.flushing);
    clearTimeout(this.sweeping);
  }

  private flush(): void {
    this.flushing = undefined;
    const names = [...this.pending];
    this.pending.clear();
    // While the connection is away, its `ready` subscribes every channel.
    if (this.conn.status === 'ready') void this.subscribe(names, this.epoch);
  }

  /** The connection (or one master's subscriber) is lost: nothing is in force until every channel is subscribed again. */
  private lost(): void {
    this.epoch++;
    this.whole = false;
    for (const channel of this.channels.values()) {
      channel.answered = false;
      wake(channel);
    }
  }

  /**
   * Every channel again, then whole. On a cluster only once every master has answered: a refusal
   * (a master still away) leaves it for the next `subscribersReady`.
   */
  private async subscribeAll(epoch: number): Promise<void> {
    this.pending.clear();
    const refused = await this.subscribe([...this.channels.keys()], epoch, this.conn instanceof Cluster ? 'resubscribe' : 'subscribe');
    if (epoch !== this.epoch || (refused && this.conn instanceof Cluster)) return;
    this.whole = true;
    this.onWhole();
  }

  /** Subscribes, then marks the channels answered (those still wanted, on the same connection); true when Redis refused. */
  private async subscribe(names: string[], epoch: number, command: 'subscribe' | 'resubscribe' = 'subscribe'): Promise<boolean> {
    if (names.length === 0) return false;
    const channels = names.map((name) => this.channels.get(name));
    let refused = false;
    try {
      await this.send(names, command);
    } catch (err) {
      refused = true;
      // A master of a cluster still away: tried again when ioredis has a subscriber for it.
      if (this.conn instanceof Cluster && !this.whole) this.log.debug({ err, channels: names.length }, 'redis bus topic subscribe refused');
      else if (epoch === this.epoch) this.log.error({ err, channels: names.length }, 'redis bus topic subscribe failed');
    }
    names.forEach((name, i) => {
      const channel = channels[i];
      if (channel === undefined || this.channels.get(name) !== channel) return;
      if (epoch === this.epoch) channel.answered = true;
      wake(channel);
    });
    return refused;
  }

  /** Unsubscribes, in one go, the channels released more than LINGER_MS ago. */
  private sweep(): void {
    this.sweeping = undefined;
    const now = Date.now();
    const names: string[] = [];
    let soonest = Number.POSITIVE_INFINITY;
    for (const [name, channel] of this.channels) {
      if (channel.interests > 0) continue;
      const due = channel.idleSince + LINGER_MS;
      if (due > now) {
        soonest = Math.min(soonest, due);
        continue;
      }
      this.channels.delete(name);
      this.pending.delete(name);
      wake(channel);
      names.push(name);
    }
    if (soonest !== Number.POSITIVE_INFINITY) this.sweeping = setTimeout(() => this.sweep(), Math.max(soonest - now, SWEEP_GRAIN_MS)).unref();
    if (names.length === 0 || this.conn.status !== 'ready') return;
    this.send(names, 'unsubscribe').catch((err: unknown) => this.log.warn({ err }, 'redis bus topic unsubscribe failed'));
  }

  /**
   * `resubscribe` (a cluster's channels again): unsubscribe first, as ioredis adds a channel to the
   * list it keeps for its own resubscriptions once per SSUBSCRIBE and removes every copy on SUNSUBSCRIBE.
   */
  private send(names: string[], command: 'subscribe' | 'resubscribe' | 'unsubscribe'): Promise<unknown> {
    const sharded = this.mode === 'sharded';
    const sent: Promise<unknown>[] = [];
    for (let i = 0; i < names.length; i += sharded ? 1 : BATCH) {
      const batch = names.slice(i, i + (sharded ? 1 : BATCH));
      if (command === 'unsubscribe') {
        sent.push(sharded ? this.conn.sunsubscribe(...batch) : this.conn.unsubscribe(...batch));
        continue;
      }
      if (command === 'resubscribe' && sharded) this.conn.sunsubscribe(...batch).catch(() => undefined);
      sent.push(sharded ? this.conn.ssubscribe(...batch) : this.conn.subscribe(...batch));
    }
    return Promise.all(sent);
  }
}

function wake(channel: Channel): void {
  const waiters = channel.waiters;
  channel.waiters = undefined;
  if (waiters !== undefined) for (const resolve of waiters) resolve();
}
