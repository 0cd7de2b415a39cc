import { pino, type Logger } from 'pino';

export type { Logger };

/**
 * Structured logs to standard output. Writes are buffered (4 KiB) off the request path: an
 * access line per request must not cost a synchronous write; main.ts flushes on shutdown.
 */
export function createLogger(level: string): Logger {
  return pino(
    {
      level,
      base: undefined,
      redact: { paths: ['token', 'manageToken', 'secret', 'headers["x-api-token"]', 'headers["x-manage-token"]', 'headers.authorization'], censor: '[redacted]' },
    },
    pino.destination({ dest: 1, sync: false, minLength: 4096 }),
  );
}
