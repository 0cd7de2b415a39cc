import { replayBatch, type Made } from './compact/replay-batches.js';
import type { TopicWriting } from './compact/topic-writing.js';
import type { Dictionary } from './compact/shapes.js';
import type { LiveMessage } from './live.js';

/**
 * Compact event streams (`?encoding=compact`, docs/realtime.md): the dictionary first, then each
 * item's `data:` as `[topicIndex, data]` (the data written whole, nothing referenced: a stream
 * keeps no table), and a replayed slice as one `event:batch` whose data is the WebSocket's batch.
 * An item's or a slice's text at its own cursor is the same for every single-room stream: made once.
 */

/** The stream's first event: the dictionary, or its id when the client holds it. */
export const dictionaryEvent = (dictionary: Dictionary, held: string) => `event:dictionary\ndata:${held === dictionary.id ? JSON.stringify(dictionary.id) : dictionary.json}\n\n`;

const dataOf = new WeakMap<LiveMessage, string>();
const itemAtOwnCursor = new WeakMap<LiveMessage, Buffer>();
const batchAtOwnCursor = new WeakMap<Made, Buffer>();

function data(writing: TopicWriting, message: LiveMessage): string {
  let json = dataOf.get(message);
  if (json === undefined) {
    json = JSON.stringify(writing.alone(message));
    dataOf.set(message, json);
  }
  return json;
}

const itemText = (writing: TopicWriting, message: LiveMessage, index: number, id: string | undefined) =>
  `${id === undefined ? '' : `id:${id}\n`}event:${message.type}\ndata:[${index},${data(writing, message)}]\n\n`;

/** One item of topic `index` (the URL's order), `id` the stream's position after it. */
export function compactItem(writing: TopicWriting, message: LiveMessage, index: number, id: string | undefined): string | Buffer {
  if (index !== 0 || id === undefined || id !== message.cursor) return itemText(writing, message, index, id);
  let bytes = itemAtOwnCursor.get(message);
  if (bytes === undefined) {
    bytes = Buffer.from(itemText(writing, message, index, id));
    itemAtOwnCursor.set(message, bytes);
  }
  return bytes;
}

/** Replayed items of topic `index` as one event, `id` the stream's position after the last. */
export function compactBatch(writing: TopicWriting, items: readonly LiveMessage[], prev: number | undefined, index: number, id: string): Buffer {
  const batch = replayBatch(writing, index, items, prev);
  const own = index === 0 && id === items.at(-1)?.cursor;
  const held = own ? batchAtOwnCursor.get(batch) : undefined;
  if (held !== undefined) return held;
  const bytes = Buffer.concat([Buffer.from(`id:${id}\nevent:batch\ndata:`), batch.text, Buffer.from('\n\n')]);
  if (own) batchAtOwnCursor.set(batch, bytes);
  return bytes;
}
