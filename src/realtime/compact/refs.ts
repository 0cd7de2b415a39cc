import { equalJson, type Placement, type RefScope } from './writer.js';

type Json = Record<string, unknown>;

interface Entry {
  n: number;
  kind: string;
  value: Json;
  /** The index of the last frame that carried it. */
  frame: number;
}

const keyOf = (kind: string, id: string) => `${kind}\u0000${id}`;

/** Within one frame (or one batch): what this reader was already given, so a second mention is a reference. */
class Given {
  private readonly given = new Map<string, { n: number; value: Json }>();

  again(key: string, value: Json): Placement | undefined {
    const before = this.given.get(key);
    if (before === undefined) return undefined;
    const placed: Placement = before.value === value || equalJson(before.value, value) ? { as: 'ref', n: before.n } : { as: 'delta', n: before.n, base: before.value };
    before.value = value;
    return placed;
  }

  set(key: string, n: number, value: Json): void {
    this.given.set(key, { n, value });
  }
}

/**
 * The objects with an identity (users, events) a topic's frames carried lately, numbered, as every
 * subscriber that received those frames holds them. A frame is written twice from it: `whole`
 * (every such object in full with its number, for subscribers that joined lately) and `known`
 * (by number while unchanged, as changes otherwise, for those that received every one of the
 * last `window` frames, or a snapshot). An object not carried for `window` frames is let go.
 *
 * A snapshot holds the objects of other kinds than the topic's items (its users: few, and in every
 * item); items (events a reaction points to) carried before the last snapshot was given go whole.
 */
export class RefTable {
  private readonly entries = new Map<string, Entry>();
  private readonly free: number[] = [];
  private nextNumber = 0;
  /** Frames written so far: the next one's index. */
  frames = 0;
  /** Frames written when the last snapshot was given. */
  private horizon = 0;

  constructor(
    readonly window: number,
    private readonly itemKind: string | undefined,
  ) {}

  /** The scopes of the next frame; call `done` once both were written (or the one needed). */
  nextFrame(): FrameRefs {
    return new FrameRefs(this);
  }

  /** What a newcomer is given to take references at once (the current objects but items); undefined past `max`. */
  snapshot(max: number): { n: number; kind: string; value: Json }[] | undefined {
    const out: { n: number; kind: string; value: Json }[] = [];
    for (const entry of this.entries.values()) {
      if (!this.current(entry) || entry.kind === this.itemKind) continue;
      if (out.length === max) return undefined;
      out.push({ n: entry.n, kind: entry.kind, value: entry.value });
    }
    return out;
  }

  /** A newcomer was given the snapshot: items carried before now are unknown to it. */
  given(): void {
    this.horizon = this.frames;
  }

  /** @internal FrameRefs */
  entry(key: string): Entry | undefined {
    return this.entries.get(key);
  }

  /** @internal FrameRefs */
  current(entry: Entry): boolean {
    return entry.frame >= this.frames - this.window;
  }

  /** @internal FrameRefs: every subscriber taking references holds it. */
  known(entry: Entry): boolean {
    return this.current(entry) && (entry.kind !== this.itemKind || entry.frame >= this.horizon);
  }

  /** @internal FrameRefs */
  number(): number {
    return this.free.pop() ?? this.nextNumber++;
  }

  /** @internal FrameRefs: the frame's objects as it left them; entries past the window let go (implicit numbers, below 0, are not taken again). */
  commit(latest: Map<string, { n: number; kind: string; value: Json }>): void {
    const index = this.frames++;
    for (const [key, { n, kind, value }] of latest) {
      this.entries.delete(key);
      this.entries.set(key, { n, kind, value, frame: index });
    }
    for (const [key, entry] of this.entries) {
      if (this.current(entry)) break;
      this.entries.delete(key);
      if (entry.n >= 0) this.free.push(entry.n);
    }
  }
}

/** One frame's two ways of writing, and what it leaves in the table. */
export class FrameRefs {
  /** Numbers of the objects this frame carries (new ones taken once for both ways). */
  private readonly numbers = new Map<string, number>();
  private readonly latest = new Map<string, { n: number; kind: string; value: Json }>();

  constructor(private readonly table: RefTable) {}

  /** Every object in full, numbered. */
  readonly whole: RefScope = this.scope(false);
  /** By number or as changes where the table's current entry allows. */
  readonly known: RefScope = this.scope(true);

  done(): void {
    this.table.commit(this.latest);
  }

  private numberOf(key: string, implicit: number | undefined): number {
    let n = this.numbers.get(key) ?? this.table.entry(key)?.n ?? implicit;
    if (n === undefined) n = this.table.number();
    this.numbers.set(key, n);
    return n;
  }

  private scope(useTable: boolean): RefScope {
    const given = new Given();
    return {
      place: (kind, id, value, implicit) => {
        const key = keyOf(kind, id);
        const n = this.numberOf(key, implicit);
        this.latest.set(key, { n, kind, value });
        const again = given.again(key, value);
        if (again !== undefined) return again;
        given.set(key, n, value);
        const entry = useTable ? this.table.entry(key) : undefined;
        if (entry === undefined || !this.table.known(entry)) return { as: 'whole', n, implicit: n === implicit };
        return entry.value === value || equalJson(entry.value, value) ? { as: 'ref', n } : { as: 'delta', n, base: entry.value };
      },
    };
  }
}

/** Within one batch of replayed items: every object whole the first time, then by number or as changes; nothing kept after. */
export function batchRefs(): RefScope {
  const given = new Given();
  let next = 0;
  return {
    place: (kind, id, value, implicit) => {
      const key = keyOf(kind, id);
      const again = given.again(key, value);
      if (again !== undefined) return again;
      const n = implicit ?? next++;
      given.set(key, n, value);
      return { as: 'whole', n, implicit: implicit !== undefined };
    },
  };
}
