import { pino, type Logger } from 'pino';

export type { Logger };

/** Longest a buffered line waits before it reaches standard output. */
const FLUSH_INTERVAL_MS = 500;

/**
 * Structured logs to standard output. Writes are buffered (4 KiB) off the request path: an
 * access line per request must not cost a synchronous write; a timer flushes what is buffered
 * every half second, so a line is out within a second however quiet the server is.
 * `buffered: false` writes each line at once, for a thread that logs rarely and may end without a flush.
 */
export function createLogger(level: string, { buffered = true } = {}): Logger {
  const destination = buffered ? pino.destination({ dest: 1, sync: false, minLength: 4096 }) : pino.destination({ dest: 1, sync: true });
  if (buffered) setInterval(() => destination.flush(), FLUSH_INTERVAL_MS).unref();
  return pino(
    {
      level,
      base: undefined,
      redact: { paths: ['token', 'manageToken', 'secret', 'headers["x-api-token"]', 'headers["x-manage-token"]', 'headers.authorization'], censor: '[redacted]' },
    },
    destination,
  );
}

/** Settles once every buffered line is written. */
export function flushed(log: Logger): Promise<void> {
  return new Promise((resolve) => log.flush(() => resolve()));
}
