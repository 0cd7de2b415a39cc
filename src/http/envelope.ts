/** Every response body, success or error: {kind:"api.result", message, code, errors, data}. */
export function envelope(code: number, message: string, data: unknown, errors: Record<string, string> = {}): string {
  return JSON.stringify({ kind: 'api.result', message, code, errors, data: data ?? null });
}
