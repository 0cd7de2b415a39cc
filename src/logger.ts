import { pino, type Logger } from 'pino';

export type { Logger };

/**
 * Structured logs to standard output. Writes are buffered (4 KiB) off the request path: an
 * access line per request must not cost a synchronous write; main.ts flushes on shutdown.
 * `buffered: false` writes each line at once, for a thread that logs rarely and may end without a flush.
 */
export function createLogger(level: string, { buffered = true } = {}): Logger {
  return pino(
    {
      level,
      base: undefined,
      redact: { paths: ['token', 'manageToken', 'secret', 'headers["x-api-token"]', 'headers["x-manage-token"]', 'headers.authorization'], censor: '[redacted]' },
    },
    buffered ? pino.destination({ dest: 1, sync: false, minLength: 4096 }) : pino.destination({ dest: 1, sync: true }),
  );
}
