import type { LiveMessage } from '../live.js';
import { compactEventFrame, refsFrame } from './frames.js';
import { RefTable } from './refs.js';
import type { Shapes } from './shapes.js';
import type { TopicWriting } from './topic-writing.js';
import { NO_REFS, type CompactWriter } from './writer.js';

export interface CompactSettings {
  shapes: Shapes;
  writer: CompactWriter;
  /**
   * How many of a topic's frames an object stays referable after the last one that carried it, and
   * how many frames a subscriber takes whole before it takes references when it got no snapshot
   * (WS_COMPACT_WINDOW); it bounds the objects a topic's table holds.
   */
  window: number;
  /** A subscriber is given the table at once (and takes references from its first frame) while it holds at most this many objects (WS_COMPACT_SNAPSHOT). */
  snapshotObjects: number;
}

/** What a live item is on this node, written for the two kinds of compact subscriber. */
export interface CompactFrames {
  /** Every object whole: for subscribers that joined lately, and replays taking live items. */
  whole: string;
  /** By reference where the table allows; undefined when nobody takes it. */
  known: string | undefined;
}

/** A subscriber taking whole frames until it can take references: `promote` moves it, with the snapshot it needs first (if any). */
type Promote = (snapshot: string | undefined) => void;

/**
 * One topic's compact writing on this node, made once per published item for every compact
 * subscriber (the fan-out stays serialise-once): its number in frames, its table of objects
 * (RefTable), and the subscribers still taking whole frames.
 */
export class TopicEncoder {
  private readonly table: RefTable;
  private readonly waiting: { since: number; promote: Promote }[] = [];
  private snapshot: { at: number; given: { frame: string | undefined } | undefined } | undefined;
  /** Compact sockets holding the topic (subscribed or resuming). */
  holders = 0;

  constructor(
    readonly ref: number,
    readonly writing: TopicWriting,
    private readonly settings: CompactSettings,
  ) {
    this.table = new RefTable(settings.window, writing.shape?.kind);
  }

  frames(message: LiveMessage, prev: number | undefined, withKnown: boolean): CompactFrames {
    const refs = this.table.nextFrame();
    const { shape } = this.writing;
    const whole = compactEventFrame(this.ref, this.writing.data(message, refs.whole), message, prev, shape);
    const known = withKnown ? compactEventFrame(this.ref, this.writing.data(message, refs.known), message, prev, shape) : undefined;
    refs.done();
    return { whole, known };
  }

  /** A frame sent to one subscriber outside the published stream (a topic's snapshot on subscribe): nothing referenced, nothing kept. */
  direct(message: LiveMessage): string {
    return compactEventFrame(this.ref, this.writing.alone(message), message, undefined, this.writing.shape);
  }
  /**
   * A subscriber starts taking the live items: the snapshot of the table when it is small (then it
   * takes references at once; an empty table needs no frame), else undefined: it takes whole frames
   * and is promoted (`promote`) once it has every frame an object may be referenced from.
   */
  join(promote: Promote): { snapshot: string | undefined } | undefined {
    const snapshot = this.currentSnapshot();
    if (snapshot !== undefined) {
      this.table.given();
      return { snapshot: snapshot.frame };
    }
    this.waiting.push({ since: this.table.frames, promote });
    return undefined;
  }

  /** After each published item: subscribers whose wait is over, or all when the table became small, take references from the next one. */
  promote(): void {
    if (this.waiting.length === 0) return;
    const snapshot = this.currentSnapshot();
    if (snapshot !== undefined) {
      this.table.given();
      for (const { promote } of this.waiting.splice(0)) promote(snapshot.frame);
      return;
    }
    let ready = 0;
    while (ready < this.waiting.length && (this.waiting[ready] as { since: number }).since + this.settings.window <= this.table.frames) ready++;
    for (const { promote } of this.waiting.splice(0, ready)) promote(undefined);
  }

  /** The table as a joining subscriber is given it, made once per frame however many join; undefined when too large. */
  private currentSnapshot(): { frame: string | undefined } | undefined {
    if (this.snapshot?.at === this.table.frames) return this.snapshot.given;
    const live = this.table.snapshot(this.settings.snapshotObjects);
    let given: { frame: string | undefined } | undefined;
    if (live !== undefined) {
      const { writer, shapes, where } = this.writing;
      const objects = live.map(({ n, kind, value }) => {
        const shape = shapes.get(kind);
        // A URL prefix (CompactWriter.url) is no REST object: `{"k":"url","#":n,"s":prefix}`.
        return shape === undefined ? { k: kind, '#': n, ...value } : writer.whole(value, kind, shape, null, where, NO_REFS, n);
      });
      given = { frame: objects.length === 0 ? undefined : refsFrame(this.ref, objects) };
    }
    this.snapshot = { at: this.table.frames, given };
    return given;
  }
}
