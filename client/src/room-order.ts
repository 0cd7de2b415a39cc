import type { EventMeta } from './types.js';

export type Deliver = (data: unknown, meta: EventMeta) => void;

interface Held {
  data: unknown;
  meta: EventMeta;
}

/**
 * One room's events in seq order, each once. Seq grows by one per feed item, but items this
 * client may not see (shadow-banned) leave holes, and two nodes may publish out of order: an
 * event past a hole waits `windowMs` for the ones before it, then the hole is taken as real.
 */
export class RoomOrder {
  /** Seq of the last event delivered; undefined until the first one (or a cursor) tells. */
  last: number | undefined;
  cursor: string | undefined;
  private readonly held = new Map<number, Held>();
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly deliver: Deliver,
    private readonly windowMs: number,
  ) {}

  /** Resume from here: the cursor and the position it holds. */
  reset(cursor: string | undefined, seq: number | undefined): void {
    this.forget();
    this.cursor = cursor;
    this.last = seq;
  }

  /** Held events are dropped when the socket goes: the resume from `cursor` brings them again. */
  forget(): void {
    this.held.clear();
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  push(data: unknown, meta: EventMeta): void {
    const seq = meta.seq;
    if (seq === undefined) return this.deliver(data, meta);
    if (this.last !== undefined && (seq <= this.last || this.held.has(seq))) return;
    if (this.last !== undefined && seq !== this.last + 1) {
      this.held.set(seq, { data, meta });
      this.timer ??= setTimeout(() => this.flush(), this.windowMs);
      return;
    }
    this.emit(seq, { data, meta });
    this.drain();
  }

  /** Events caught up through REST, in order: each with its seq and cursor. */
  caughtUp(data: unknown, meta: EventMeta): void {
    this.deliver(data, meta);
    if (meta.seq !== undefined) this.last = meta.seq;
    if (meta.cursor !== undefined) this.cursor = meta.cursor;
  }

  /**
   * The server says where the subscription stands (its `subscribed` frame): taken unless this
   * order is already further; a resume from here misses nothing even before a first event.
   */
  adopt(cursor: string, seq: number | undefined): void {
    if (seq === undefined || (this.last !== undefined && seq <= this.last)) return;
    this.last = seq;
    this.cursor = cursor;
    for (const held of this.held.keys()) if (held <= seq) this.held.delete(held);
    this.drain();
  }

  private emit(seq: number, { data, meta }: Held): void {
    this.last = seq;
    if (meta.cursor !== undefined) this.cursor = meta.cursor;
    this.deliver(data, meta);
  }

  private drain(): void {
    for (let next = this.held.get((this.last as number) + 1); next !== undefined; next = this.held.get((this.last as number) + 1)) {
      this.held.delete((this.last as number) + 1);
      this.emit((this.last as number) + 1, next);
    }
    if (this.held.size === 0) this.forget();
  }

  /** The wait is over: what is held goes out in seq order, over the holes. */
  private flush(): void {
    this.timer = undefined;
    const seqs = [...this.held.keys()].sort((a, b) => a - b);
    for (const seq of seqs) {
      const held = this.held.get(seq) as Held;
      this.held.delete(seq);
      this.emit(seq, held);
    }
  }
}
