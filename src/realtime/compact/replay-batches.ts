import { deflateRawSync } from 'node:zlib';
import { BinaryFrame } from '../connection.js';
import type { LiveMessage } from '../live.js';
import type { TopicEncoder } from './topic-encoder.js';

interface Made {
  ref: number;
  prev: number | undefined;
  last: LiveMessage;
  text: Buffer;
  deflated: BinaryFrame | undefined;
}

/**
 * Replayed slices' batch frames, keyed by their first item: the items are shared by every
 * subscriber resuming the topic (CatchUpBlocks) and slices are aligned on seq, so a crowd resuming
 * from the same place (and every subscriber, past its first slice) is sent the same bytes, made and
 * deflated once.
 */
const made = new WeakMap<LiveMessage, Made>();

/** The frame of a replayed slice for a compact subscriber: the batch, deflated when it takes that. */
export function replayBatch(encoder: TopicEncoder, slice: readonly LiveMessage[], prev: number | undefined, deflate: boolean): Buffer | BinaryFrame {
  const first = slice[0] as LiveMessage;
  const last = slice.at(-1) as LiveMessage;
  let batch = made.get(first);
  if (batch === undefined || batch.ref !== encoder.ref || batch.prev !== prev || batch.last !== last) {
    batch = { ref: encoder.ref, prev, last, text: Buffer.from(encoder.batch(slice, prev)), deflated: undefined };
    made.set(first, batch);
  }
  if (!deflate) return batch.text;
  batch.deflated ??= new BinaryFrame(deflateRawSync(batch.text));
  return batch.deflated;
}
