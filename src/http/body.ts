import { isUtf8 } from 'node:buffer';
import type { HttpResponse } from 'uWebSockets.js';

export type BodyResult = { kind: 'ok'; text: string } | { kind: 'too-large' } | { kind: 'not-utf8' };

/** Why a body that is not UTF-8 (an overlong form, a stray byte) is refused rather than read with U+FFFD in its place. */
export const NOT_UTF8 = 'must be valid UTF-8';

/**
 * Reads a request body from uWS. onData must be attached before the request handler returns,
 * and uWS reuses each chunk's memory after the callback, so chunks are copied at once.
 */
export function readBody(res: HttpResponse, limit: number, done: (result: BodyResult) => void): void {
  let parts: Buffer[] | undefined;
  let size = 0;
  let finished = false;
  res.onData((chunk, isLast) => {
    if (finished) return;
    size += chunk.byteLength;
    if (size > limit) {
      finished = true;
      done({ kind: 'too-large' });
      return;
    }
    if (isLast && parts === undefined) {
      finished = true;
      done(decoded(Buffer.from(chunk)));
      return;
    }
    (parts ??= []).push(Buffer.from(new Uint8Array(chunk)));
    if (isLast) {
      finished = true;
      done(decoded(Buffer.concat(parts)));
    }
  });
}

const decoded = (bytes: Buffer): BodyResult => (isUtf8(bytes) ? { kind: 'ok', text: bytes.toString('utf8') } : { kind: 'not-utf8' });
