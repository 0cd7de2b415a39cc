import { pino, type Logger } from 'pino';

export type { Logger };

export function createLogger(level: string): Logger {
  return pino({
    level,
    base: undefined,
    redact: { paths: ['token', 'manageToken', 'headers["x-api-token"]', 'headers["x-manage-token"]', 'headers.authorization', 'secret'], censor: '[redacted]' },
  });
}
