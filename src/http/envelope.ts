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

/** The envelope around data in pieces, as the bytes sent. */
export function envelopeAroundPieces(code: number, message: string, pieces: JsonPieces): Buffer {
  const parts = [`{"kind":"api.result","message":${JSON.stringify(message)},"code":${code},"errors":{},"data":`, ...pieces, '}'];
  return Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : p)));
}
