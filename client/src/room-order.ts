import type { EventMeta } from './types.js';

export type Deliver = (data: unknown, meta: EventMeta) => void;

interface Held {
  data: unknown;
  meta: EventMeta;
  /** The seq of the event before it in this client's stream, as the server says. */
  prev: number | undefined;
}

/**
 * One room's events in seq order, each once. Seq grows by one per feed item; items this client
 * may not see (shadow-banned, deleted) leave holes, which the server names: each event's `prev`
 * is the seq of the one before it in the stream. An event past a hole its `prev` does not account
 * for waits `windowMs` for the ones before it (the server fills its own holes); past that the
 * hole is not guessed over: `stalled` is called, and the client reads the room from `cursor`.
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
    private readonly stalled: () => void,
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

  push(data: unknown, meta: EventMeta, prev: number | undefined): void {
    const seq = meta.seq;
    if (seq === undefined) return this.deliver(data, meta);
    if (this.last !== undefined && (seq <= this.last || this.held.has(seq))) return;
    const held = { data, meta, prev };
    if (!this.follows(seq, held)) {
      this.held.set(seq, held);
      this.timer ??= setTimeout(() => {
        this.timer = undefined;
        this.stalled();
      }, this.windowMs);
      return;
    }
    this.emit(seq, held);
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

  /** Nothing lies between the last event handed over and this one, or only events this client may not see. */
  private follows(seq: number, held: Held): boolean {
    return this.last === undefined || seq === this.last + 1 || held.prev === this.last;
  }

  private drain(): void {
    while (this.held.size > 0) {
      const seq = Math.min(...this.held.keys());
      const next = this.held.get(seq) as Held;
      if (!this.follows(seq, next)) return;
      this.held.delete(seq);
      this.emit(seq, next);
    }
    this.forget();
  }
}
