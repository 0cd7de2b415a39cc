/**
 * Cross-node fan-out. A message published on any node reaches the handlers of every node
 * exactly once: the publishing node delivers locally at once, the others learn it through the
 * shared transport (none for the in-process bus, Redis pub/sub for the cluster).
 */
export interface BusMessage {
  /** What the message is about, e.g. `room:{roomid}`, `presence`, `poll:{pollid}`. */
  topic: string;
  /** JSON-serialisable payload. */
  payload: unknown;
}

export type BusHandler = (appId: string, message: BusMessage) => void;

export interface Bus {
  readonly kind: 'memory' | 'redis';
  /** A live item of `message.topic`: reaches the nodes that take an interest in that topic. */
  publish(appId: string, message: BusMessage): void;
  /** Control traffic every node must see (invalidations, revocations, replicated state). */
  broadcast(appId: string, message: BusMessage): void;
  /** Handlers see every message this node receives; returns the unsubscribe function. */
  onMessage(handler: BusHandler): () => void;
  /** Called after the cross-node link comes back: messages sent meanwhile may have been lost. */
  onReconnect(handler: () => void): () => void;
  /** True when messages published now reach every node. */
  isConnected(): boolean;
  close(): Promise<void>;
}

/** Local delivery shared by both implementations. */
export class LocalHandlers {
  private readonly handlers = new Set<BusHandler>();

  add(handler: BusHandler): () => void {
    this.handlers.add(handler);
    return () => this.handlers.delete(handler);
  }

  deliver(appId: string, message: BusMessage, onError: (err: unknown) => void): void {
    for (const handler of this.handlers) {
      try {
        handler(appId, message);
      } catch (err) {
        onError(err);
      }
    }
  }
}
