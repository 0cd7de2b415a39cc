import { gzipSync } from 'node:zlib';

/** Answers at least this large are gzipped for clients that take it; a smaller one fits in a packet as it is. */
export const GZIP_FROM_BYTES = 1400;

/** The client takes gzip (`Accept-Encoding`), and has not refused it with `q=0`. */
export function takesGzip(acceptEncoding: string): boolean {
  const offer = /(?:^|,)\s*gzip\s*(?:;\s*q\s*=\s*([0-9.]+))?\s*(?:,|$)/i.exec(acceptEncoding);
  return offer !== null && (offer[1] === undefined || Number(offer[1]) > 0);
}

interface Packed {
  /** What surrounds the shared piece in the answer (status, message, the text around it). */
  around: string;
  gzip: Buffer;
}

/**
 * An answer made for one request (a read nobody shares, a list answered to a POST such as a
 * search): gzipped at the fastest level, as its compression is paid once per request.
 */
export function gzippedForOne(body: string | Buffer): Buffer {
  return gzipSync(body, { level: 1 });
}

/** Reads and lists are compressed for clients that take it; writes (a post's answer) stay plain, off the hot path. */
export function compressible(method: string, data: unknown): boolean {
  if (method === 'GET') return true;
  const kind = typeof data === 'object' && data !== null ? (data as { kind?: unknown }).kind : undefined;
  return typeof kind === 'string' && kind.startsWith('list.');
}

/** Keyed by the shared piece the answer is made of: it lives as long as the shared answer does. */
const packedAnswers = new WeakMap<Buffer, Packed>();

/**
 * The gzipped answer made of a piece many clients are sent (a shared answer) and what surrounds it
 * (`around`: the same for every request that shares the piece), compressed once however many
 * clients take it: a crowd reading a 100 KB page costs one compression per change, and each
 * client a fraction of the bytes.
 */
export function gzippedOnce(piece: Buffer, around: string, body: () => string | Buffer): Buffer {
  const held = packedAnswers.get(piece);
  if (held !== undefined && held.around === around) return held.gzip;
  const gzip = gzipSync(body());
  packedAnswers.set(piece, { around, gzip });
  return gzip;
}
