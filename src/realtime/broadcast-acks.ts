/** Nodes whose acknowledgements are remembered; past it the one heard from least recently is forgotten (a node restarted long ago). */
const NODES_REMEMBERED = 1000;

interface Delivery {
  seq: number;
  /** How many nodes (this one included) received it: Redis's answer to its PUBLISH (Infinity until it answers). */
  receivers: number;
  /** How many nodes acknowledged applying it. */
  applied: number;
  /** performance.now() when it was sent. */
  sentAt: number;
}

/**
 * The sending side of "a change acknowledged on one node shows at once on every other": a write
 * that broadcast invalidations is answered only once every node that received them has applied
 * them. Broadcasts carry a sequence number per sending node; a node applies a broadcast as it
 * parses it, then acknowledges the highest number it applied of each sender (one message per
 * sender per tick, however many arrived), which covers the sender's earlier broadcasts too (Redis
 * keeps one connection's order). Redis tells the sender how many nodes received each broadcast, so
 * it knows how many acknowledgements to wait for without knowing the nodes. Reads cost nothing:
 * the change pays, and changes are rare beside the reads a crowd makes of them. A node that does
 * not acknowledge within `timeoutMs` is waited for no longer.
 */
export class BroadcastAcks {
  /** The sequence number of the last broadcast sent: a mark for `appliedAfter`. */
  lastSent = 0;
  /** Waiting, oldest first. */
  private pending: Delivery[] = [];
  /** The highest sequence number each node applied of this node's broadcasts, least recently heard first. */
  private readonly appliedBy = new Map<string, number>();
  /** Callers of `appliedAfter`, by the sequence number they wait for (one promise shared per number). */
  private readonly waiting = new Map<number, { done: Promise<void>; resolve: () => void }>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly timeoutMs: number,
    private readonly onTimeout: () => void,
  ) {}

  /** The sequence number of the broadcast about to be published; waited for from now on. */
  next(): number {
    const seq = ++this.lastSent;
    this.pending.push({ seq, receivers: Number.POSITIVE_INFINITY, applied: 0, sentAt: performance.now() });
    this.timer ??= setTimeout(this.expire, this.timeoutMs);
    return seq;
  }

  /** Redis answered the broadcast's PUBLISH: `receivers` nodes got it (0 when the publish failed). */
  published(seq: number, receivers: number): void {
    const delivery = this.pending.find((d) => d.seq === seq);
    if (delivery === undefined) return;
    delivery.receivers = receivers;
    if (delivery.applied >= receivers) this.release((d) => d === delivery);
  }

  /** `node` applied this node's broadcasts up to `seq`. */
  applied(node: string, seq: number): void {
    const before = this.appliedBy.get(node) ?? 0;
    if (before >= seq) return;
    this.appliedBy.delete(node);
    if (this.appliedBy.size >= NODES_REMEMBERED) this.appliedBy.delete(this.appliedBy.keys().next().value as string);
    this.appliedBy.set(node, seq);
    let done = false;
    for (const delivery of this.pending) {
      if (delivery.seq <= before || delivery.seq > seq) continue;
      delivery.applied++;
      done ||= delivery.applied >= delivery.receivers;
    }
    if (done) this.release((d) => d.applied >= d.receivers);
  }

  /** Resolves once the broadcasts sent after `mark` (a `lastSent` read before) are applied by the nodes that received them; undefined when none was sent. */
  appliedAfter(mark: number): Promise<void> | undefined {
    const upTo = this.lastSent;
    if (upTo === mark || this.settledUpTo() >= upTo) return undefined;
    const known = this.waiting.get(upTo);
    if (known !== undefined) return known.done;
    let resolve = () => {};
    const done = new Promise<void>((r) => (resolve = r));
    this.waiting.set(upTo, { done, resolve });
    return done;
  }

  private readonly expire = (): void => {
    this.timer = undefined;
    const late = performance.now() - this.timeoutMs;
    this.release((d) => {
      if (d.sentAt > late) return false;
      this.onTimeout();
      return true;
    });
    const oldest = this.pending[0];
    if (oldest !== undefined) this.timer = setTimeout(this.expire, Math.max(1, oldest.sentAt + this.timeoutMs - performance.now()));
  };

  /** Broadcasts up to this number are applied by all their receivers, or waited for long enough. */
  private settledUpTo(): number {
    return this.pending[0] === undefined ? this.lastSent : this.pending[0].seq - 1;
  }

  private release(done: (delivery: Delivery) => boolean): void {
    this.pending = this.pending.filter((delivery) => !done(delivery));
    if (this.pending.length === 0 && this.timer !== undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    const upTo = this.settledUpTo();
    for (const [seq, waiter] of this.waiting) {
      if (seq > upTo) continue;
      this.waiting.delete(seq);
      waiter.resolve();
    }
  }
}
