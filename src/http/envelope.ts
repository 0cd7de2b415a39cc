import { ScratchBytes } from '../scratch-bytes.js';

/** Every response body, success or error: {kind:"api.result", message, code, errors, data}. */
export function envelope(code: number, message: string, data: unknown, errors: Record<string, string> = {}): string {
  return JSON.stringify({ kind: 'api.result', message, code, errors, data: data ?? null });
}

/** The envelope up to its data, which follows, then `}`. */
const envelopeHead = (code: number, message: string) => `{"kind":"api.result","message":${JSON.stringify(message)},"code":${code},"errors":{},"data":`;

/** The same envelope around data already serialized to JSON (a cached response, sent without re-serializing). */
export function envelopeAroundJson(code: number, message: string, dataJson: string): string {
  return `${envelopeHead(code, message)}${dataJson}}`;
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
  const head = envelopeHead(code, message);
  const headBytes = Buffer.byteLength(head);
  // Each text piece is measured once: for the answer's size, then to write it.
  const pieceBytes = pieces.map((piece) => (typeof piece === 'string' ? Buffer.byteLength(piece) : piece.length));
  let size = headBytes + 1;
  for (const bytes of pieceBytes) size += bytes;
  assembled.clear(size);
  assembled.write(head, headBytes);
  pieces.forEach((piece, i) => {
    if (typeof piece === 'string') assembled.write(piece, pieceBytes[i]);
    else assembled.append(piece);
  });
  assembled.write('}', 1);
  return assembled.bytes();
}
