import { badRequest } from '../errors.js';
import { normalizeBody } from './normalize.js';
import { mayHoldUnstorable } from './storable.js';

/** Opaque cursors: any JSON value, base64url-encoded. */
export function encodeCursor(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

export function decodeCursor<T>(cursor: string, check: (value: unknown) => value is T): T {
  try {
    const text = Buffer.from(cursor, 'base64url').toString('utf8');
    // A cursor's strings reach queries too: text that may hold NUL or a lone surrogate gets a body's checks.
    const parsed: unknown = JSON.parse(text);
    const value = mayHoldUnstorable(text) ? normalizeBody(parsed, true) : parsed;
    if (check(value)) return value;
  } catch {
    // falls through to the 400 below
  }
  throw badRequest('The cursor is not valid.', { cursor: 'is not a cursor this endpoint returned' });
}

export const isString = (x: unknown): x is string => typeof x === 'string';

const CURSOR_TIME = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3})(\d{3})?Z$/;

/**
 * A time as cursors hold it (ISO 8601 UTC with milliseconds, or microseconds as Postgres
 * writes them) that names a real instant Postgres accepts: `2024-02-31` or year 0 would fail the query.
 */
export function isCursorTime(x: unknown): x is string {
  if (typeof x !== 'string') return false;
  const ms = CURSOR_TIME.exec(x)?.[1];
  if (ms === undefined || ms.startsWith('0000')) return false;
  const date = new Date(`${ms}Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString() === `${ms}Z`;
}

/** The key a list cursor of string keys (ids) holds; undefined for the first page (no cursor). */
export function stringCursor(cursor: string): string | undefined {
  return cursor === '' ? undefined : decodeCursor(cursor, isString);
}

/** The list payload every list endpoint returns (api-v3.md, List payloads). */
export function listPayload<K extends string>(kind: string, itemsKey: K, items: unknown[], nextCursor: string, extra: Record<string, unknown> = {}) {
  return { kind, ...extra, cursor: nextCursor, more: nextCursor !== '', itemcount: items.length, [itemsKey]: items };
}

/**
 * Splits rows fetched with `limit + 1` into the page and the next cursor: the extra row only
 * tells that more exist, and the cursor is the key of the page's last row.
 */
/** One page of a list and the cursor of the next ('' on the last). */
export interface Page<T> {
  items: T[];
  next: string;
}

export function pageOf<T>(rows: T[], limit: number, key: (row: T) => unknown): Page<T> {
  const more = rows.length > limit;
  const items = more ? rows.slice(0, limit) : rows;
  const last = items.at(-1);
  return { items, next: more && last !== undefined ? encodeCursor(key(last)) : '' };
}
