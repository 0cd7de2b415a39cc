import { gzipSync } from 'node:zlib';

/** Answers at least this large are gzipped for clients that take it; a smaller one fits in a packet as it is. */
export const GZIP_FROM_BYTES = 1400;

/** The client takes gzip (`Accept-Encoding`), and has not refused it with `q=0`. */
export function takesGzip(acceptEncoding: string): boolean {
  const offer = /(?:^|,)\s*gzip\s*(?:;\s*q\s*=\s*([0-9.]+))?\s*(?:,|$)/i.exec(acceptEncoding);
  return offer !== null && (offer[1] === undefined || Number(offer[1]) > 0);
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

/** Answers made of a shared piece, keyed by it: they live as long as the piece does. */
interface MadeOnce {
  /** What surrounds the shared piece in the answer (status, message, the text around it). */
  around: string;
  plain?: Buffer;
  gzip?: Buffer;
}

const madeAnswers = new WeakMap<Buffer, MadeOnce>();

/**
 * The answer made of a piece many clients are sent (a shared answer) and what surrounds it
 * (`around`: the same for every request that shares the piece), made once however many clients
 * take it, plain or gzipped: a crowd reading a 100 KB page costs one envelope and one compression
 * per change, not a copy or a compression per request. The caches holding such pieces count them
 * twice (the piece and its answers).
 */
export function answerOnce(piece: Buffer, around: string, gzip: boolean, body: () => string | Buffer): Buffer {
  let made = madeAnswers.get(piece);
  if (made === undefined || made.around !== around) {
    made = { around };
    madeAnswers.set(piece, made);
  }
  // A copy: the envelope may be written in a scratch buffer the next answer reuses.
  return gzip ? (made.gzip ??= gzipSync(body())) : (made.plain ??= Buffer.from(body()));
}
