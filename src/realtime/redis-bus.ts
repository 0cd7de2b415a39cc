import { Cluster } from 'ioredis';
import { newId } from '../ids.js';
import type { Logger } from '../logger.js';
import { busMetrics } from '../metrics/registry.js';
import { redisClient, type RedisClient, type RedisConfig } from '../redis.js';
import { BroadcastAcks } from './broadcast-acks.js';
import { ClusterReach } from './cluster-reach.js';
import { LocalHandlers, type Bus, type BusHandler, type BusMessage, type BusOutage } from './bus.js';
import { TopicChannels } from './topic-channels.js';

/** Broadcasts: every node subscribes. */
const CONTROL = 'engage:bus';
const MAX_HELD_BROADCASTS = 10_000;
/** How long a write waits for the other nodes to acknowledge its broadcasts before it is answered anyway. */
const ACK_TIMEOUT_MS = 1000;
/** Where a node hears the acknowledgements of its broadcasts (see BroadcastAcks). */
const ackChannel = (nodeId: string) => `engage:ack:${nodeId}`;
/** A topic's live items: the nodes that take an interest in it subscribe. */
const topicChannel = (appId: string, topic: string) => `engage:t:${appId}:${topic}`;

/** Parsed once on arrival and handed to the handlers as it is (it is a BusMessage). */
interface Wire extends BusMessage {
  /** The node that published: it already delivered locally and skips its own echo. */
  n: string;
  a: string;
  /** A broadcast's sequence number on its sending node, acknowledged once applied. */
  s?: number;
}

/**
 * Redis pub/sub fan-out: broadcasts on one channel every node subscribes to, live items on a
 * channel per (application, topic) that a node subscribes to while it takes an interest in the
 * topic (on a connection of its own, see TopicChannels). Local subscribers are served even while
 * Redis is away: the node delivers its own messages at once and only the cross-node leg waits
 * for Redis to return.
 */
export class RedisBus implements Bus {
  readonly kind = 'redis';
  private readonly nodeId = newId();
  private readonly local = new LocalHandlers();
  private readonly sharded: boolean;
  private readonly publisher: RedisClient;
  private readonly control: RedisClient;
  private readonly topicConn: RedisClient;
  private readonly topics: TopicChannels;
  /** On a Redis Cluster: whether every master answers (the client stays ready while one is away). */
  private readonly reach: ClusterReach | undefined;
  private controlSubscribed = false;
  private wholeBefore = false;
  /** When the link was lost (Date.now()); undefined while it is whole. */
  private downSince: number | undefined;
  private readonly reconnectHandlers = new Set<(outage: BusOutage) => void>();
  /** Connections (and `publish`) whose error was logged since the link was last whole or the connection ready. */
  private readonly errorsTold = new Set<string>();
  /** Broadcasts made while the publisher was away, sent when it is back (oldest dropped past the bound). */
  private readonly heldBroadcasts: string[] = [];
  private readonly acks = new BroadcastAcks(ACK_TIMEOUT_MS, () => busMetrics.ackTimeouts.inc());
  /** Per sending node, the highest broadcast applied here and not acknowledged yet (sent on the next tick). */
  private readonly unacknowledged = new Map<string, number>();

  constructor(
    config: RedisConfig,
    private readonly log: Logger,
  ) {
    this.sharded = config.pubsub === 'sharded';
    // Subscriptions are made again by this class once a connection is back, so that it knows when they are all in force.
    const subscriberOptions = { enableOfflineQueue: true, maxRetriesPerRequest: 1, autoResubscribe: false };
    this.publisher = redisClient(config, { enableOfflineQueue: false, maxRetriesPerRequest: 1 });
    this.control = redisClient(config, subscriberOptions);
    this.topicConn = redisClient(config, { ...subscriberOptions, shardedSubscribers: this.sharded });
    for (const [name, conn] of [
      ['publisher', this.publisher],
      ['control', this.control],
      ['topics', this.topicConn],
    ] as const) {
      // Once per connection until the link is whole again: a client retries every few milliseconds while Redis is away.
      conn.on('error', (err: Error) => {
        if (this.errorsTold.has(name)) return;
        this.errorsTold.add(name);
        log.warn({ conn: name, err: err.message }, 'redis bus connection error (more are not logged until the link is whole)');
      });
      conn.on('close', () => {
        log.warn({ conn: name }, 'redis bus connection lost; serving local subscribers only');
        this.linkLost();
      });
      let connectedBefore = false;
      conn.on('ready', () => {
        this.errorsTold.delete(name);
        log.info({ conn: name }, 'redis bus connected');
        if (connectedBefore) busMetrics.reconnects.inc();
        connectedBefore = true;
      });
    }
    this.publisher.on('ready', () => {
      const held = this.heldBroadcasts.splice(0);
      for (const raw of held) this.publisher.publish(CONTROL, raw).then(this.published, this.publishFailed);
    });
    this.control.on('ready', () => {
      this.control.subscribe(CONTROL, ackChannel(this.nodeId)).then(
        () => {
          this.controlSubscribed = true;
          this.linkWhole();
        },
        (err: unknown) => log.error({ err }, 'redis bus subscribe failed'),
      );
    });
    this.control.on('close', () => {
      this.controlSubscribed = false;
    });
    this.control.on('message', (channel: string, raw: string) => (channel === CONTROL ? this.receive(raw) : this.acknowledged(raw)));
    this.topics = new TopicChannels(this.topicConn, config.pubsub, log, () => this.linkWhole());
    if (this.publisher instanceof Cluster) {
      const reach = new ClusterReach(
        this.publisher,
        log,
        () => this.linkLost(),
        () => this.linkWhole(),
      );
      this.reach = reach;
      for (const conn of [this.publisher, this.topicConn]) conn.on('-node', () => reach.suspect());
    }
    this.topicConn.on(this.sharded ? 'smessage' : 'message', (_channel: string, raw: string) => {
      if (this.receive(raw)) busMetrics.receivedLive.inc();
    });
  }

  /** Resolves once every connection is up, or after the timeout (the node starts anyway). */
  async waitUntilConnected(timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (!this.isConnected() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
    return this.isConnected();
  }

  publish(appId: string, message: BusMessage): void {
    this.local.deliver(appId, message, this.handlerFailed);
    // A live item the other nodes cannot get now: each reads it from the feed once its link is back (TopicContinuity).
    if (this.publisher.status !== 'ready') return busMetrics.unsent.inc();
    const channel = topicChannel(appId, message.topic);
    const raw = this.serialised(appId, message);
    (this.sharded ? this.publisher.spublish(channel, raw) : this.publisher.publish(channel, raw)).then(this.published, this.publishFailed);
  }

  /** An invalidation must not be lost to a node whose link came back before ours: while the publisher is away it is held. */
  broadcast(appId: string, message: BusMessage): void {
    this.local.deliver(appId, message, this.handlerFailed);
    if (this.publisher.status !== 'ready') {
      if (this.heldBroadcasts.length >= MAX_HELD_BROADCASTS && this.heldBroadcasts.shift() !== undefined) busMetrics.unsent.inc();
      this.heldBroadcasts.push(this.serialised(appId, message));
      return;
    }
    const seq = this.acks.next();
    this.publisher.publish(CONTROL, this.serialised(appId, message, seq)).then(
      (receivers) => {
        this.published();
        this.acks.published(seq, receivers);
      },
      (err: unknown) => {
        this.publishFailed(err);
        this.acks.published(seq, 0);
      },
    );
  }

  interest(appId: string, topic: string): () => void {
    return this.topics.hold(topicChannel(appId, topic));
  }

  /** Other nodes' interests are not known here. */
  reaches(): boolean {
    return true;
  }

  listening(appId: string, topic: string): Promise<void> {
    return this.topics.listening(topicChannel(appId, topic));
  }

  onMessage(handler: BusHandler): () => void {
    return this.local.add(handler);
  }

  onReconnect(handler: (outage: BusOutage) => void): () => void {
    this.reconnectHandlers.add(handler);
    return () => this.reconnectHandlers.delete(handler);
  }

  isConnected(): boolean {
    return this.publisher.status === 'ready' && this.controlSubscribed && this.topics.whole && (this.reach?.whole ?? true);
  }

  /** Broadcasts held while the publisher is away are not waited for: the nodes drop their caches when the link is back. */
  async settledAcrossNodes<T>(work: () => T | Promise<T>): Promise<T> {
    const mark = this.acks.lastSent;
    const result = await work();
    const applied = this.acks.appliedAfter(mark);
    if (applied !== undefined) await applied;
    return result;
  }

  async close(): Promise<void> {
    this.topics.close();
    this.reach?.close();
    this.publisher.disconnect();
    this.control.disconnect();
    this.topicConn.disconnect();
  }

  private serialised(appId: string, message: BusMessage, seq?: number): string {
    const wire: Wire = { n: this.nodeId, a: appId, topic: message.topic, payload: message.payload };
    if (seq !== undefined) wire.s = seq;
    return JSON.stringify(wire);
  }

  /** Both subscriber connections are subscribed: after a loss, that is a reconnect. */
  private linkWhole(): void {
    if (!this.controlSubscribed || !this.topics.whole || !(this.reach?.whole ?? true)) return;
    this.errorsTold.clear();
    if (this.wholeBefore && this.downSince !== undefined) this.announceReconnect();
    this.wholeBefore = true;
  }

  /** The first connection lost starts an outage; it lasts until every subscription is in force again. */
  private linkLost(): void {
    if (this.downSince !== undefined || !this.wholeBefore) return;
    this.downSince = Date.now();
    busMetrics.outages.inc();
  }

  private announceReconnect(): void {
    const outage: BusOutage = { downMs: Date.now() - (this.downSince ?? Date.now()) };
    this.downSince = undefined;
    for (const handler of this.reconnectHandlers) {
      try {
        handler(outage);
      } catch (err) {
        this.log.error({ err }, 'bus reconnect handler failed');
      }
    }
  }

  /** Delivers another node's message; false for a malformed one or this node's own echo. */
  private receive(raw: string): boolean {
    let wire: Wire;
    try {
      wire = JSON.parse(raw) as Wire;
    } catch {
      this.log.warn('redis bus dropped a malformed message');
      return false;
    }
    if (wire.n === this.nodeId) {
      if (wire.s !== undefined) this.acks.applied(this.nodeId, wire.s);
      return false;
    }
    busMetrics.received.inc();
    this.local.deliver(wire.a, wire, this.handlerFailed);
    if (wire.s !== undefined) this.acknowledge(wire.n, wire.s);
    return true;
  }

  /** Applied: told to the sender on the next tick, once for all its broadcasts that arrived meanwhile. */
  private acknowledge(sender: string, seq: number): void {
    if (this.unacknowledged.size === 0) setImmediate(this.sendAcks);
    this.unacknowledged.set(sender, Math.max(seq, this.unacknowledged.get(sender) ?? 0));
  }

  private readonly sendAcks = (): void => {
    const ready = this.publisher.status === 'ready';
    for (const [sender, seq] of this.unacknowledged) if (ready) this.publisher.publish(ackChannel(sender), `${this.nodeId} ${seq}`).catch(this.publishFailed);
    this.unacknowledged.clear();
  };

  /** Another node applied this node's broadcasts up to the number it names. */
  private acknowledged(raw: string): void {
    const [node, seq] = raw.split(' ');
    const applied = Number(seq);
    if (node !== undefined && Number.isSafeInteger(applied)) this.acks.applied(node, applied);
  }

  private readonly handlerFailed = (err: unknown, message: BusMessage): void => this.log.error({ err, topic: message.topic }, 'bus handler failed');
  private readonly published = (): void => busMetrics.published.inc();
  private readonly publishFailed = (err: unknown): void => {
    busMetrics.unsent.inc();
    this.reach?.suspect();
    if (this.errorsTold.has('publish')) return;
    this.errorsTold.add('publish');
    this.log.warn({ err }, 'redis bus publish failed (more are counted, not logged, until the link is whole)');
  };
}
