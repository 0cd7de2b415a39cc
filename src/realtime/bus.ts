/**
 * Cross-node fan-out. A message published on any node reaches the handlers of every node
 * that takes an interest in its topic exactly once (a broadcast reaches every node): the
 * publishing node delivers locally at once, the others learn it through the shared transport
 * (none for the in-process bus, Redis pub/sub for the cluster).
 */
export interface BusMessage {
  /** What the message is about, e.g. `room:{roomid}`, `presence`, `poll:{pollid}`. */
  topic: string;
  /** JSON-serialisable payload. */
  payload: unknown;
}

export type BusHandler = (appId: string, message: BusMessage) => void;

/** A loss of the cross-node link, told when it is over. */
export interface BusOutage {
  /** From the first connection lost to every subscription in force again. */
  downMs: number;
}

export interface Bus {
  readonly kind: 'memory' | 'redis';
  /** A live item of `message.topic`: reaches the nodes that take an interest in that topic. */
  publish(appId: string, message: BusMessage): void;
  /** Control traffic every node must see (invalidations, revocations, replicated state). */
  broadcast(appId: string, message: BusMessage): void;
  /**
   * Other nodes' live items of the topic reach this node until the returned function is called.
   * Interests are counted per topic: the topic is dropped (after a short while) when the last is released.
   */
  interest(appId: string, topic: string): () => void;
  /**
   * Resolves once other nodes' live items of the topic reach this node: at once when they do
   * already, when nothing holds an interest in it, or while the link is down (the link comes
   * back with every interest in force, then announces itself through `onReconnect`).
   */
  listening(appId: string, topic: string): Promise<void>;
  /**
   * False when no node can receive a live item of the topic now, so a publisher may skip making
   * it: on one process, when nothing holds an interest in it. A cluster's bus cannot know what
   * other nodes hold and always answers true.
   */
  reaches(appId: string, topic: string): boolean;
  /** Handlers see every message this node receives; returns the unsubscribe function. */
  onMessage(handler: BusHandler): () => void;
  /** Called after the cross-node link comes back, every interest in force again: messages sent meanwhile may have been lost. */
  onReconnect(handler: (outage: BusOutage) => void): () => void;
  /** True when messages published now reach every node. */
  isConnected(): boolean;
  /**
   * Runs `work` (a request's handler), then resolves with its result once every node has applied
   * the broadcasts this node made meanwhile (a second at most): a change answered after it shows
   * on every node.
   */
  settledAcrossNodes<T>(work: () => T | Promise<T>): T | Promise<T>;
  close(): Promise<void>;
}

/** Local delivery shared by both implementations. */
export class LocalHandlers {
  private readonly handlers = new Set<BusHandler>();

  add(handler: BusHandler): () => void {
    this.handlers.add(handler);
    return () => this.handlers.delete(handler);
  }

  /** `onError` is given the message a handler failed on (one bound function: nothing allocated per message). */
  deliver(appId: string, message: BusMessage, onError: (err: unknown, message: BusMessage) => void): void {
    for (const handler of this.handlers) {
      try {
        handler(appId, message);
      } catch (err) {
        onError(err, message);
      }
    }
  }
}
