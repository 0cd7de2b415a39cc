import type { HttpResponse } from 'uWebSockets.js';

export type BodyResult = { kind: 'ok'; text: string } | { kind: 'too-large' };

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
      done({ kind: 'ok', text: Buffer.from(chunk).toString('utf8') });
      return;
    }
    (parts ??= []).push(Buffer.from(new Uint8Array(chunk)));
    if (isLast) {
      finished = true;
      done({ kind: 'ok', text: Buffer.concat(parts).toString('utf8') });
    }
  });
}
