import { canonicalCursor, CompactDecoder, type Dictionary, Table, type TopicShape, type Where } from './compact.js';

/** A frame as the server writes it for plain sockets (docs/realtime.md); compact frames are read back into these. */
export interface Frame {
  type: string;
  topic?: string;
  event?: string;
  data?: unknown;
  seq?: number;
  /** Seq of the event before this one in the stream (room events). */
  prev?: number;
  cursor?: string;
  code?: string;
  message?: string;
  userid?: string | null;
  appid?: string;
  encoding?: string;
  dictionary?: Dictionary | string;
}

interface TopicState {
  topic: string;
  where: Where;
  shape: TopicShape | undefined;
  table: Table;
}

/** `[seq, prev, event, cursor]` after an item's data, filled in where the frame left them out. */
function positions(shape: TopicShape | undefined, rest: readonly unknown[], prevOmitted: (seq: number | undefined) => number | undefined): Pick<Frame, 'seq' | 'prev' | 'event' | 'cursor'> {
  const seq = (rest[0] as number | null | undefined) ?? undefined;
  const out: Pick<Frame, 'seq' | 'prev' | 'event' | 'cursor'> = { event: (rest[2] as string | null | undefined) ?? shape?.event ?? '' };
  const prev = rest.length > 1 ? ((rest[1] as number | null) ?? undefined) : prevOmitted(seq);
  const cursor = rest.length > 3 ? ((rest[3] as string | null) ?? undefined) : canonicalCursor(shape, seq);
  if (seq !== undefined) out.seq = seq;
  if (prev !== undefined) out.prev = prev;
  if (cursor !== undefined) out.cursor = cursor;
  return out;
}

/**
 * One socket's compact stream: the dictionary it was given, the number of each topic it follows
 * and the objects each topic's frames gave it; turns every frame back into the plain frames it stands for.
 */
export class CompactStream {
  private decoder: CompactDecoder | undefined;
  private appId = '';
  private readonly topics = new Map<number, TopicState>();

  /** The dictionary held from an earlier connection: the server need not send it again. */
  get dictionaryId(): string | undefined {
    return this.decoder?.dictionary.id;
  }

  /** A new socket: topic numbers start again (the dictionary is kept). */
  reset(): void {
    this.topics.clear();
  }

  frames(parsed: unknown): Frame[] {
    if (Array.isArray(parsed)) return [this.item(parsed)];
    const frame = parsed as Frame & { t?: number; r?: unknown[]; p?: number | null; e?: unknown[] };
    switch (frame.type) {
      case 'ready':
        this.ready(frame);
        return [frame];
      case 'ref':
        this.follow(frame.topic as string, frame.t as number);
        return [];
      case 'refs': {
        const state = this.state(frame.t as number);
        this.decoderOf().take(frame.r ?? [], state.where, state.table);
        return [];
      }
      case 'batch':
        return this.batch(frame.t as number, frame.p ?? undefined, frame.e ?? []);
      case 'unsubscribed':
        for (const [n, state] of this.topics) if (state.topic === frame.topic) this.topics.delete(n);
        return [frame];
      default:
        return [frame];
    }
  }

  private ready(frame: Frame): void {
    this.appId = frame.appid ?? '';
    const dictionary = frame.dictionary;
    if (typeof dictionary === 'object') this.decoder = new CompactDecoder(dictionary);
    else if (frame.encoding === 'compact' && dictionary !== this.decoder?.dictionary.id) throw new Error('compact frames: the server named a dictionary this client does not hold');
  }

  private decoderOf(): CompactDecoder {
    if (this.decoder === undefined) throw new Error('compact frames before the dictionary');
    return this.decoder;
  }

  private follow(topic: string, n: number): void {
    const colon = topic.indexOf(':');
    const shape = this.decoderOf().dictionary.topics[topic.slice(0, colon)];
    // Kept twice the server's window: frames sent to this socket alone (a topic's snapshot) are no part of it.
    this.topics.set(n, { topic, where: { topicId: topic.slice(colon + 1), appId: this.appId }, shape, table: new Table(2 * this.decoderOf().dictionary.window) });
  }

  private state(n: number): TopicState {
    const state = this.topics.get(n);
    if (state === undefined) throw new Error(`compact frame for topic number ${n}, never named`);
    return state;
  }

  /** `[t, data, seq?, prev?, event?, cursor?]`. */
  private item(parts: readonly unknown[]): Frame {
    const state = this.state(parts[0] as number);
    const told = positions(state.shape, parts.slice(2), (seq) => (seq === undefined ? undefined : seq - 1));
    const data = this.decoderOf().value(parts[1], state.shape?.kind ?? null, state.where, state.table, told.seq === undefined ? undefined : -told.seq);
    state.table.tick();
    return { type: 'event', topic: state.topic, data, ...told };
  }

  /** `{"type":"batch","t","p","e":[…]}`: objects numbered within the batch only. */
  private batch(n: number, prev: number | undefined, entries: readonly unknown[]): Frame[] {
    const state = this.state(n);
    const table = new Table();
    let before = prev;
    return entries.map((entry) => {
      const [encoded, ...rest] = Array.isArray(entry) ? entry : [entry, before === undefined ? null : before + 1];
      // [data, seq, event?, cursor?] → positions' [seq, prev, event, cursor]
      const told = positions(state.shape, [rest[0], before ?? null, ...rest.slice(1)].slice(0, rest.length + 1), () => before);
      const data = this.decoderOf().value(encoded, state.shape?.kind ?? null, state.where, table, told.seq === undefined ? undefined : -told.seq);
      before = told.seq;
      return { type: 'event', topic: state.topic, data, ...told };
    });
  }
}
