/** Every response body, success or error: {kind:"api.result", message, code, errors, data}. */
export function envelope(code: number, message: string, data: unknown, errors: Record<string, string> = {}): string {
  return JSON.stringify({ kind: 'api.result', message, code, errors, data: data ?? null });
}

/** The same envelope around data already serialized to JSON (a cached response, sent without re-serializing). */
export function envelopeAroundJson(code: number, message: string, dataJson: string): string {
  return `{"kind":"api.result","message":${JSON.stringify(message)},"code":${code},"errors":{},"data":${dataJson}}`;
}

/**
 * JSON already serialized, in pieces sent one after the other: a large part shared by many answers
 * (a crowd's events page) stays one Buffer, copied into each answer instead of encoded again.
 */
export type JsonPieces = (string | Buffer)[];

/** Answers assembled from pieces up to this size reuse one buffer; a larger one gets its own. */
const SCRATCH_BYTES = 256 * 1024;
let scratch = Buffer.allocUnsafe(64 * 1024);

/**
 * The envelope around data in pieces, as the bytes to send AT ONCE: the Buffer is reused by the
 * next answer (uWS copies what it sends before `end` returns). A crowd joining got a new 50 KB
 * Buffer per answer, and collecting them was a tenth of a join's CPU.
 */
export function envelopeAroundPieces(code: number, message: string, pieces: JsonPieces): Buffer {
  const head = `{"kind":"api.result","message":${JSON.stringify(message)},"code":${code},"errors":{},"data":`;
  let size = Buffer.byteLength(head) + 1;
  for (const piece of pieces) size += typeof piece === 'string' ? Buffer.byteLength(piece) : piece.length;
  if (size > scratch.length && size <= SCRATCH_BYTES) scratch = Buffer.allocUnsafe(SCRATCH_BYTES);
  const out = size <= scratch.length ? scratch : Buffer.allocUnsafe(size);
  let at = out.write(head, 0);
  for (const piece of pieces) at += typeof piece === 'string' ? out.write(piece, at) : piece.copy(out, at);
  at += out.write('}', at);
  return out.subarray(0, at);
}
