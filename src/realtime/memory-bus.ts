import type { Logger } from '../logger.js';
import { busMetrics } from '../metrics/registry.js';
import { LocalHandlers, type Bus, type BusHandler, type BusMessage } from './bus.js';

const alreadyListening = Promise.resolve();
/** An application's topic, as `held` counts it. */
const heldKey = (appId: string, topic: string) => `${appId}/${topic}`;

export class MemoryBus implements Bus {
  readonly kind = 'memory';
  private readonly local = new LocalHandlers();
  /** Interests held per application topic (heldKey): a topic nobody holds reaches nobody. */
  private readonly held = new Map<string, number>();

  constructor(private readonly log: Logger) {}

  publish(appId: string, message: BusMessage): void {
    busMetrics.published.inc();
    this.local.deliver(appId, message, this.handlerFailed);
  }

  broadcast(appId: string, message: BusMessage): void {
    this.publish(appId, message);
  }

  /** One process hears every topic: an interest is only counted, for `reaches`. */
  interest(appId: string, topic: string): () => void {
    const key = heldKey(appId, topic);
    this.held.set(key, (this.held.get(key) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.held.get(key) ?? 1) - 1;
      if (left > 0) this.held.set(key, left);
      else this.held.delete(key);
    };
  }

  reaches(appId: string, topic: string): boolean {
    return this.held.has(heldKey(appId, topic));
  }

  listening(): Promise<void> {
    return alreadyListening;
  }

  onMessage(handler: BusHandler): () => void {
    return this.local.add(handler);
  }

  /** One process never loses its own messages. */
  onReconnect(): () => void {
    return () => {};
  }

  isConnected(): boolean {
    return true;
  }

  /** Every broadcast is delivered before `broadcast` returns. */
  settledAcrossNodes<T>(work: () => T | Promise<T>): T | Promise<T> {
    return work();
  }

  async close(): Promise<void> {}

  private readonly handlerFailed = (err: unknown, message: BusMessage): void => this.log.error({ err, topic: message.topic }, 'bus handler failed');
}
