import { ApiError } from '../http/errors.js';
import type { Rate } from './config.js';

/**
 * 429 in the envelope. Headers: `Retry-After` (seconds) and the IETF draft's
 * (draft-ietf-httpapi-ratelimit-headers-06) `RateLimit-Limit`, `RateLimit-Remaining`,
 * `RateLimit-Reset` (seconds until the window ends), sent on 429 answers only.
 */
export class RateLimited extends ApiError {
  readonly headers: [string, string][];

  constructor(message: string, rate: Rate, msBeforeNext: number) {
    const retryAfter = Math.max(1, Math.ceil(msBeforeNext / 1000));
    super(429, `${message} Retry after ${retryAfter} s.`, {}, { retryafter: retryAfter, limit: rate.points, windowseconds: rate.seconds });
    this.headers = [
      ['retry-after', String(retryAfter)],
      ['ratelimit-limit', String(rate.points)],
      ['ratelimit-remaining', '0'],
      ['ratelimit-reset', String(retryAfter)],
    ];
  }
}

/** What browsers may read of a 429 answer (Access-Control-Expose-Headers). */
export const RATE_LIMIT_HEADERS = 'retry-after, ratelimit-limit, ratelimit-remaining, ratelimit-reset';
