import { DomainError } from '../errors.js';
import type { Rate } from './config.js';

/**
 * A used-up budget (429 over HTTP, `rate_limited` over WebSocket). `data` tells clients when to
 * retry; the HTTP server also sends it as headers (src/http/error-status.ts).
 */
export class RateLimited extends DomainError {
  /** Seconds until the window ends, at least 1. */
  readonly retryAfter: number;

  constructor(
    message: string,
    readonly rate: Rate,
    msBeforeNext: number,
  ) {
    const retryAfter = Math.max(1, Math.ceil(msBeforeNext / 1000));
    super('rate_limited', `${message} Retry after ${retryAfter} s.`, {}, { retryafter: retryAfter, limit: rate.points, windowseconds: rate.seconds });
    this.retryAfter = retryAfter;
  }
}
