import type { LiveMessage } from '../live.js';
import { batchFrame } from './frames.js';
import { batchRefs } from './refs.js';
import type { Shapes, TopicShape } from './shapes.js';
import { type CompactWriter, NO_REFS, type RefScope, type Where } from './writer.js';

/** The compact writing of one topic's items, apart from any table of what a reader holds (TopicEncoder adds that). */
export class TopicWriting {
  constructor(
    readonly writer: CompactWriter,
    readonly shapes: Shapes,
    readonly where: Where,
    readonly shape: TopicShape | undefined,
  ) {}

  /** An item's data, objects placed by `refs`; a feed item takes -seq as its number. */
  data(message: LiveMessage, refs: RefScope): unknown {
    return this.writer.value(message.data, this.shape?.kind ?? null, this.where, refs, message.seq === undefined ? undefined : -message.seq);
  }

  /** An item's data with every object whole and unnumbered: a reader that keeps nothing reads it. */
  alone(message: LiveMessage): unknown {
    return this.writer.value(message.data, this.shape?.kind ?? null, this.where, NO_REFS);
  }

  /** Replayed items in one frame of topic `ref`, every object whole the first time it comes in the batch (batchRefs). */
  batch(ref: number, items: readonly LiveMessage[], prev: number | undefined): string {
    const refs = batchRefs();
    return batchFrame(
      ref,
      prev,
      items.map((message) => ({ message, data: this.data(message, refs) })),
      this.shape,
    );
  }
}
