const REASONS: Record<number, string> = {
  200: 'OK',
  204: 'No Content',
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  412: 'Precondition Failed',
  413: 'Payload Too Large',
  429: 'Too Many Requests',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

const lines = new Map<number, string>();

/** The status line uWS writes, built once per code. */
export function statusLine(code: number): string {
  let line = lines.get(code);
  if (line === undefined) {
    line = `${code} ${REASONS[code] ?? 'Unknown'}`;
    lines.set(code, line);
  }
  return line;
}
