import { ScratchBytes } from '../scratch-bytes.js';

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

/** Where answers are assembled from their pieces. */
const assembled = new ScratchBytes();

/**
 * The envelope around data in pieces, as the bytes to send AT ONCE: the Buffer is reused by the
 * next answer (uWS copies what it sends before `end` returns). A crowd joining got a new 50 KB
 * Buffer per answer, and collecting them was a tenth of a join's CPU.
 */
export function envelopeAroundPieces(code: number, message: string, pieces: JsonPieces): Buffer {
  const head = `{"kind":"api.result","message":${JSON.stringify(message)},"code":${code},"errors":{},"data":`;
  let size = Buffer.byteLength(head) + 1;
  for (const piece of pieces) size += typeof piece === 'string' ? Buffer.byteLength(piece) : piece.length;
  assembled.clear(size);
  assembled.write(head);
  for (const piece of pieces) {
    if (typeof piece === 'string') assembled.write(piece);
    else assembled.append(piece);
  }
  assembled.write('}');
  return assembled.bytes();
}
