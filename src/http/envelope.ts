/** Every response body, success or error: {kind:"api.result", message, code, errors, data}. */
export function envelope(code: number, message: string, data: unknown, errors: Record<string, string> = {}): string {
  return JSON.stringify({ kind: 'api.result', message, code, errors, data: data ?? null });
}

/** The same envelope around data already serialized to JSON (a cached response, sent without re-serializing). */
export function envelopeAroundJson(code: number, message: string, dataJson: string): string {
  return `{"kind":"api.result","message":${JSON.stringify(message)},"code":${code},"errors":{},"data":${dataJson}}`;
}
