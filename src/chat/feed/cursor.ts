import { decodeCursor, encodeCursor } from '../../http/cursor.js';
import { badRequest } from '../../errors.js';

/**
 * Chat cursors. The `updates` cursor holds the feed position (seq) already seen; the scroll-back
 * cursors hold the position (or, for history, the event id) the next page ends before. A letter
 * tells them apart, so a cursor given to the wrong list is refused with 400, not misread.
 */
type Tagged = { u: number } | { b: number } | { h: string };

const isTagged = (x: unknown): x is Tagged =>
  typeof x === 'object' &&
  x !== null &&
  ((Number.isSafeInteger((x as { u?: unknown }).u) && (x as { u: number }).u >= 0) ||
    (Number.isSafeInteger((x as { b?: unknown }).b) && (x as { b: number }).b > 0) ||
    typeof (x as { h?: unknown }).h === 'string');

const wrong = (): never => {
  throw badRequest('The cursor is not valid.', { cursor: 'belongs to another list' });
};

export const updatesCursor = (seq: number): string => encodeCursor({ u: seq });
export const beforeCursor = (seq: number): string => encodeCursor({ b: seq });
export const historyCursor = (id: string): string => encodeCursor({ h: id });

export function readUpdatesCursor(cursor: string): number {
  const c = decodeCursor(cursor, isTagged);
  return 'u' in c ? c.u : wrong();
}

/** 0 (no cursor) means: from the newest. */
export function readBeforeCursor(cursor: string): number {
  if (cursor === '') return 0;
  const c = decodeCursor(cursor, isTagged);
  return 'b' in c ? c.b : wrong();
}

export function readHistoryCursor(cursor: string): string {
  if (cursor === '') return '';
  const c = decodeCursor(cursor, isTagged);
  return 'h' in c ? c.h : wrong();
}
