import * as v from 'valibot';

/**
 * Field schemas shared by every route. Clients send booleans and numbers either as JSON values
 * or as strings ("true", "42"), and int32-typed enums either as their number or their string
 * (api-surface.md, Conventions); these schemas accept both and output one typed value.
 */

const TRUE = new Set(['true', '1', 'yes']);
const FALSE = new Set(['false', '0', 'no', '']);

export const flag = () =>
  v.pipe(
    v.union([v.boolean(), v.string(), v.number()], 'must be true or false'),
    v.check((x) => typeof x === 'boolean' || (typeof x === 'number' ? x === 0 || x === 1 : TRUE.has(x.toLowerCase()) || FALSE.has(x.toLowerCase())), 'must be true or false'),
    v.transform((x): boolean => (typeof x === 'boolean' ? x : typeof x === 'number' ? x === 1 : TRUE.has(x.toLowerCase()))),
  );

export const integer = (min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER) =>
  v.pipe(
    v.union([v.number(), v.string()], 'must be a whole number'),
    v.transform((x) => (typeof x === 'number' ? x : x.trim() === '' ? Number.NaN : Number(x))),
    v.check((n) => Number.isInteger(n), 'must be a whole number'),
    v.check((n) => n >= min, `must be at least ${min}`),
    v.check((n) => n <= max, `must be at most ${max}`),
  );

export const decimal = (min: number, max: number) =>
  v.pipe(
    v.union([v.number(), v.string()], 'must be a number'),
    v.transform((x) => (typeof x === 'number' ? x : x.trim() === '' ? Number.NaN : Number(x))),
    v.check((n) => Number.isFinite(n), 'must be a number'),
    v.check((n) => n >= min && n <= max, `must be between ${min} and ${max}`),
  );

/** A string; numbers are accepted and turned into their text (ids often arrive as numbers). */
export const text = (maxLength = 65536) =>
  v.pipe(
    v.union([v.string(), v.number()], 'must be a string'),
    v.transform((x) => String(x)),
    v.maxLength(maxLength, `must be at most ${maxLength} characters`),
  );

export const requiredText = (maxLength = 65536) =>
  v.pipe(
    text(maxLength),
    v.check((s) => s.trim() !== '', 'is required'),
  );

/** Custom fields are limited in bytes, not characters. */
export const bytesText = (maxBytes: number) =>
  v.pipe(
    text(maxBytes * 4),
    v.check((s) => Buffer.byteLength(s, 'utf8') <= maxBytes, `must be at most ${maxBytes} bytes`),
  );

/** customfield1 and customfield2: up to 1024 bytes each (api-v3.md, Limits). */
export const customField = () => v.optional(bytesText(1024));

/** One of the given strings (case-insensitive); int32 codes map to the string at that index. */
export const choice = <const T extends readonly string[]>(values: T, numbered = false) =>
  v.pipe(
    v.union([v.string(), v.number()], `must be one of ${values.join(', ')}`),
    v.transform((x) => (typeof x === 'number' || (numbered && /^\d+$/.test(x)) ? (values[Number(x)] ?? String(x)) : x.toLowerCase())),
    v.check((x): boolean => (values as readonly string[]).includes(x), `must be one of ${values.join(', ')}`),
    v.transform((x) => x as T[number]),
  );

/** A list of strings given as a JSON array, a comma-delimited string, or a repeated query key. */
export const stringList = (maxItems = 1000) =>
  v.pipe(
    v.union([v.array(v.union([v.string(), v.number()])), v.string()], 'must be a list of strings'),
    v.transform((x) => (Array.isArray(x) ? x.map(String) : x.split(',')).map((s) => s.trim()).filter((s) => s !== '')),
    v.maxLength(maxItems, `must have at most ${maxItems} items`),
  );

/** ISO 8601 text, or Unix time in seconds (below 1e11) or milliseconds. */
export const timestamp = () =>
  v.pipe(
    v.union([v.string(), v.number()], 'must be an ISO 8601 timestamp or Unix time'),
    v.transform((x) => {
      if (typeof x === 'number' || /^\d+$/.test(x)) {
        const n = Number(x);
        return new Date(n < 1e11 ? n * 1000 : n);
      }
      return new Date(x);
    }),
    v.check((d) => !Number.isNaN(d.getTime()), 'must be an ISO 8601 timestamp or Unix time'),
    // What a Postgres timestamp column stores.
    v.check((d) => d.getUTCFullYear() >= 1 && d.getUTCFullYear() <= 9999, 'must be between the years 1 and 9999'),
  );

/** Paging query shared by every list: limit within [1, max], default given; an opaque cursor. */
export const paging = (defaultLimit: number, maxLimit: number) => ({
  limit: v.optional(integer(1, maxLimit), defaultLimit),
  cursor: v.optional(v.string(), ''),
});
