import { badRequest } from '../errors.js';
import { decodeComponent, ENCODING_REFUSED, unstorable } from './storable.js';

/** Deeper JSON is refused: no field of the API nests beyond a few levels, and every walk below recurses. */
export const MAX_DEPTH = 64;

/**
 * A parsed JSON body, checked and normalised in one walk: nesting deeper than MAX_DEPTH is
 * refused, and so are keys and strings Postgres cannot store (when `checkStrings`; see
 * `mayHoldUnstorable`); field names are matched case-insensitively (api-surface.md,
 * Conventions), so every key is folded to lower case once, here, and schemas know one spelling.
 */
export function normalizeBody(value: unknown, checkStrings: boolean): unknown {
  let fold: boolean;
  try {
    fold = inspect(value, 0, checkStrings);
  } catch (err) {
    if (!(err instanceof Refusal)) throw err;
    const field = err.path.join('.') || 'body';
    throw badRequest(`Invalid body: ${field} ${err.reason}`, { [field]: err.reason });
  }
  return fold ? foldKeys(value) : value;
}

/** Thrown from inside the walk; each level it unwinds through adds its key, so the error names the field. */
class Refusal {
  readonly path: (string | number)[] = [];
  constructor(readonly reason: string) {}
}

const TOO_DEEP = new Refusal(`must not nest deeper than ${MAX_DEPTH} levels`);

/** True when some key needs folding. Most bodies are already lower case: checking costs no allocation, rebuilding does. */
function inspect(value: unknown, depth: number, checkStrings: boolean): boolean {
  if (typeof value === 'string') {
    const reason = checkStrings ? unstorable(value) : undefined;
    if (reason !== undefined) throw new Refusal(reason);
    return false;
  }
  if (value === null || typeof value !== 'object') return false;
  if (depth === MAX_DEPTH) throw TOO_DEEP;
  let fold = false;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) fold = within(i, value[i], depth, checkStrings) || fold;
    return fold;
  }
  for (const key in value) {
    const reason = checkStrings ? unstorable(key) : undefined;
    if (reason !== undefined) throw withKey(new Refusal(reason), key);
    if (within(key, (value as Record<string, unknown>)[key], depth, checkStrings) || key !== key.toLowerCase()) fold = true;
  }
  return fold;
}

function within(key: string | number, value: unknown, depth: number, checkStrings: boolean): boolean {
  try {
    return inspect(value, depth + 1, checkStrings);
  } catch (err) {
    throw err instanceof Refusal && err !== TOO_DEEP ? withKey(err, key) : err;
  }
}

/** The field is the innermost key: positions in a list of strings (tags, ids) are not named. */
function withKey(refusal: Refusal, key: string | number): Refusal {
  if (typeof key === 'string') refusal.path.unshift(key.toLowerCase());
  else if (refusal.path.length > 0) refusal.path.unshift(key);
  return refusal;
}

/** Called only after `inspect`: the depth is known to be bounded. */
function foldKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(foldKeys);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) setOwn(out, key.toLowerCase(), foldKeys(inner));
  return out;
}

/** A plain assignment of a `__proto__` key would replace the object's prototype: fields would then be inherited. */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * Query string to an object with folded keys; a repeated key becomes an array; an empty value
 * counts as absent; a key or value whose escapes do not decode, or that holds NUL (%00), is
 * refused, naming it.
 */
export function parseQuery(raw: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  if (raw === '') return out;
  for (const pair of raw.split('&')) {
    if (pair === '') continue;
    const equals = pair.indexOf('=');
    const key = decodeComponent(equals < 0 ? pair : pair.slice(0, equals), true);
    if (key === undefined) throw queryRefused('query', `names ${ENCODING_REFUSED}`);
    const folded = key.toLowerCase();
    const value = equals < 0 ? '' : decodeComponent(pair.slice(equals + 1), true);
    if (value === undefined) throw queryRefused(folded, ENCODING_REFUSED);
    const reason = unstorable(folded) ?? unstorable(value);
    if (reason !== undefined) throw queryRefused(folded, reason);
    if (value === '') continue;
    const seen = Object.hasOwn(out, folded) ? out[folded] : undefined;
    if (seen === undefined) setOwn(out, folded, value);
    else if (Array.isArray(seen)) seen.push(value);
    else setOwn(out, folded, [seen, value]);
  }
  return out;
}

const queryRefused = (field: string, reason: string) => badRequest(`Invalid query: ${field} ${reason}`, { [field]: reason });
