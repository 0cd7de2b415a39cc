import type { Logger } from '../logger.js';
import { busMetrics } from '../metrics/registry.js';
import { LocalHandlers, type Bus, type BusHandler, type BusMessage } from './bus.js';

const nothingToRelease = () => {};
const alreadyListening = Promise.resolve();

export class MemoryBus implements Bus {
  readonly kind = 'memory';
  private readonly local = new LocalHandlers();

  constructor(private readonly log: Logger) {}

  publish(appId: string, message: BusMessage): void {
    busMetrics.published.inc();
    this.local.deliver(appId, message, this.handlerFailed);
  }

  broadcast(appId: string, message: BusMessage): void {
    this.publish(appId, message);
  }

  /** One process hears every topic. */
  interest(): () => void {
    return nothingToRelease;
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

  async close(): Promise<void> {}

  private readonly handlerFailed = (err: unknown, message: BusMessage): void => this.log.error({ err, topic: message.topic }, 'bus handler failed');
}
