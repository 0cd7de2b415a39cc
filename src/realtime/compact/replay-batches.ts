import { deflateRawSync } from 'node:zlib';
import { BinaryFrame } from '../connection.js';
import type { LiveMessage } from '../live.js';
import type { TopicWriting } from './topic-writing.js';

export interface Made {
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

/** A replayed slice as a compact batch of topic `ref` (a socket's topic number; an event stream's topic index), made once for every reader resuming through it. */
export function replayBatch(writing: TopicWriting, ref: number, slice: readonly LiveMessage[], prev: number | undefined): Made {
  const first = slice[0] as LiveMessage;
  const last = slice.at(-1) as LiveMessage;
  let batch = made.get(first);
  if (batch === undefined || batch.ref !== ref || batch.prev !== prev || batch.last !== last) {
    batch = { ref, prev, last, text: Buffer.from(writing.batch(ref, slice, prev)), deflated: undefined };
    made.set(first, batch);
  }
  return batch;
}

/** The frame of a replayed slice for a compact socket: the batch, deflated when it takes that. */
export function replayFrame(writing: TopicWriting, ref: number, slice: readonly LiveMessage[], prev: number | undefined, deflate: boolean): Buffer | BinaryFrame {
  const batch = replayBatch(writing, ref, slice, prev);
  if (!deflate) return batch.text;
  batch.deflated ??= new BinaryFrame(deflateRawSync(batch.text));
  return batch.deflated;
}
