import type { LiveMessage } from '../live.js';
import type { TopicShape } from './shapes.js';

/** A topic's feed cursor after `seq`, as the dictionary says the client makes it. */
export function canonicalCursor(shape: TopicShape | undefined, seq: number | undefined): string | undefined {
  if (shape?.cursorKey === undefined || seq === undefined) return undefined;
  return Buffer.from(JSON.stringify({ [shape.cursorKey]: seq })).toString('base64url');
}

/**
 * A live item: `[topicRef, data, seq, prev, event, cursor]` (docs/realtime.md, Compact frames), the
 * last ones left out where the client can tell them (no seq; prev is seq - 1; the topic's event;
 * the canonical cursor). A null seq, prev or cursor that is written says there is none.
 */
export function compactEventFrame(ref: number, data: unknown, message: LiveMessage, prev: number | undefined, shape: TopicShape | undefined): string {
  const { seq } = message;
  const eventIsTopics = message.type === shape?.event;
  const parts: unknown[] = [ref, data, seq ?? null, prev ?? null, eventIsTopics ? null : message.type, message.cursor ?? null];
  const told = [true, true, seq === undefined, seq === undefined ? prev === undefined : prev === seq - 1, eventIsTopics, message.cursor === canonicalCursor(shape, seq)];
  let keep = parts.length;
  while (told[keep - 1] === true && keep > 2) keep--;
  return JSON.stringify(parts.slice(0, keep));
}

/**
 * Replayed items in one frame: `{"type":"batch","t":ref,"p":prev,"e":[…]}`. An item is its data when
 * its seq follows the one before it (`p` for the first) and its event and cursor are the topic's;
 * otherwise `[data, seq, event, cursor]`, the last two left out as in a live frame.
 */
export function batchFrame(ref: number, prev: number | undefined, items: readonly { data: unknown; message: LiveMessage }[], shape: TopicShape | undefined): string {
  let before = prev;
  const entries = items.map(({ data, message }) => {
    const follows = before === undefined ? undefined : before + 1;
    before = message.seq;
    const eventIsTopics = message.type === shape?.event;
    const cursorIsCanonical = message.cursor === canonicalCursor(shape, message.seq);
    if (message.seq !== undefined && message.seq === follows && eventIsTopics && cursorIsCanonical) return data;
    const entry: unknown[] = [data, message.seq ?? null];
    if (!eventIsTopics || !cursorIsCanonical) entry.push(eventIsTopics ? null : message.type);
    if (!cursorIsCanonical) entry.push(message.cursor ?? null);
    return entry;
  });
  return `{"type":"batch","t":${ref},"p":${prev ?? null},"e":${JSON.stringify(entries)}}`;
}

/** A topic's table as a subscriber joining it is given it: `{"type":"refs","t":ref,"r":[…]}`, each object whole, numbered, with its kind. */
export const refsFrame = (ref: number, objects: readonly unknown[]): string => `{"type":"refs","t":${ref},"r":${JSON.stringify(objects)}}`;

/** Tells a compact socket the number frames of `topic` carry: `{"type":"ref","topic":…,"t":ref}`. */
export const topicRefFrame = (topic: string, ref: number): string => `{"type":"ref","topic":${JSON.stringify(topic)},"t":${ref}}`;
