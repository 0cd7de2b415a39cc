/** Why a text holding NUL is refused (Postgres text cannot hold it). */
export const NUL_REFUSED = 'must not contain NUL characters';
/** Why a text holding half a surrogate pair is refused (it is not Unicode: Postgres refuses or mangles it). */
export const SURROGATE_REFUSED = 'must be valid Unicode (no lone surrogates)';

declare global {
  interface String {
    /** ES2024, in Node 20: false when the string holds a lone surrogate. */
    isWellFormed(): boolean;
  }
}

/** Why Postgres could not store this text as given, or undefined when it can. Both checks are native scans. */
export function unstorable(text: string): string | undefined {
  if (text.includes('\u0000')) return NUL_REFUSED;
  return text.isWellFormed() ? undefined : SURROGATE_REFUSED;
}

/**
 * JSON text can hold NUL or a lone surrogate only as a `\u` escape (raw control characters are
 * not JSON, and decoding UTF-8 never yields a lone surrogate): text without one needs no check
 * of its strings.
 */
export const mayHoldUnstorable = (json: string): boolean => json.includes('\\u');

/** Why a URL component whose escapes do not decode (`%zz`, a lone `%`, invalid or overlong UTF-8 such as `%C0%AF`) is refused. */
export const ENCODING_REFUSED = 'must be valid UTF-8, percent-encoded';

/**
 * A percent-encoded URL component as text, or undefined when its escapes do not decode: it is
 * refused, never guessed at (URLSearchParams would turn an overlong form into U+FFFD, a lenient
 * decoder would keep `%C0%AF` as it came). `plusIsSpace` for query strings.
 */
export function decodeComponent(raw: string, plusIsSpace: boolean): string | undefined {
  const text = plusIsSpace && raw.includes('+') ? raw.replaceAll('+', ' ') : raw;
  if (!text.includes('%')) return text;
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}
