import { Redis } from 'ioredis';
import { newId } from '../ids.js';
import type { Logger } from '../logger.js';
import { busMetrics } from '../metrics/registry.js';
import { LocalHandlers, type Bus, type BusHandler, type BusMessage } from './bus.js';

const CHANNEL = 'engage:bus';

interface Wire {
  /** The node that published: it already delivered locally and skips its own echo. */
  n: string;
  a: string;
  t: string;
  p: unknown;
}

/**
 * Redis pub/sub fan-out. Local subscribers are served even while Redis is away: the node
 * delivers its own messages at once and only the cross-node leg waits for Redis to return.
 */
export class RedisBus implements Bus {
  readonly kind = 'redis';
  private readonly nodeId = newId();
  private readonly local = new LocalHandlers();
  private readonly publisher: Redis;
  private readonly subscriber: Redis;
  private subscribed = false;
  private readonly reconnectHandlers = new Set<() => void>();

  constructor(
    url: string,
    private readonly log: Logger,
  ) {
    const options = { enableOfflineQueue: false, maxRetriesPerRequest: 1, retryStrategy: (times: number) => Math.min(times * 200, 2000) };
    this.publisher = new Redis(url, options);
    this.subscriber = new Redis(url, { ...options, enableOfflineQueue: true });
    for (const [name, conn] of [
      ['publisher', this.publisher],
      ['subscriber', this.subscriber],
    ] as const) {
      conn.on('error', (err: Error) => log.warn({ conn: name, err: err.message }, 'redis bus connection error'));
      conn.on('close', () => log.warn({ conn: name }, 'redis bus connection lost; serving local subscribers only'));
      let connectedBefore = false;
      conn.on('ready', () => {
        log.info({ conn: name }, 'redis bus connected');
        if (connectedBefore) busMetrics.reconnects.inc();
        connectedBefore = true;
      });
    }
    let subscribedBefore = false;
    this.subscriber.on('ready', () => {
      this.subscriber.subscribe(CHANNEL).then(
        () => {
          this.subscribed = true;
          if (subscribedBefore) this.announceReconnect();
          subscribedBefore = true;
        },
        (err: unknown) => log.error({ err }, 'redis bus subscribe failed'),
      );
    });
    this.subscriber.on('close', () => {
      this.subscribed = false;
    });
    this.subscriber.on('message', (_channel: string, raw: string) => this.receive(raw));
  }

  /** Resolves once both connections are up, or after the timeout (the node starts anyway). */
  async waitUntilConnected(timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (!this.isConnected() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
    return this.isConnected();
  }

  publish(appId: string, message: BusMessage): void {
    busMetrics.published.inc();
    this.local.deliver(appId, message, (err) => this.log.error({ err, topic: message.topic }, 'bus handler failed'));
    if (this.publisher.status !== 'ready') return;
    const wire: Wire = { n: this.nodeId, a: appId, t: message.topic, p: message.payload };
    this.publisher.publish(CHANNEL, JSON.stringify(wire)).catch((err: unknown) => this.log.warn({ err }, 'redis bus publish failed'));
  }

  broadcast(appId: string, message: BusMessage): void {
    this.publish(appId, message);
  }

  onMessage(handler: BusHandler): () => void {
    return this.local.add(handler);
  }

  onReconnect(handler: () => void): () => void {
    this.reconnectHandlers.add(handler);
    return () => this.reconnectHandlers.delete(handler);
  }

  isConnected(): boolean {
    return this.publisher.status === 'ready' && this.subscribed;
  }

  async close(): Promise<void> {
    this.publisher.disconnect();
    this.subscriber.disconnect();
  }

  private announceReconnect(): void {
    for (const handler of this.reconnectHandlers) {
      try {
        handler();
      } catch (err) {
        this.log.error({ err }, 'bus reconnect handler failed');
      }
    }
  }

  private receive(raw: string): void {
    let wire: Wire;
    try {
      wire = JSON.parse(raw) as Wire;
    } catch {
      this.log.warn('redis bus dropped a malformed message');
      return;
    }
    if (wire.n === this.nodeId) return;
    busMetrics.received.inc();
    this.local.deliver(wire.a, { topic: wire.t, payload: wire.p }, (err) => this.log.error({ err, topic: wire.t }, 'bus handler failed'));
  }
}
