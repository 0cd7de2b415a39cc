import type { DomainError, ErrorKind } from '../errors.js';
import { RateLimited } from '../limits/rate-limited.js';

/** The HTTP status of each kind of domain error (api-v3.md, Errors; README, Rate limits). */
export const HTTP_STATUS: Readonly<Record<ErrorKind, number>> = {
  invalid: 400,
  // The spec answers a missing or refused token with 403, not 401.
  unauthorized: 403,
  forbidden: 403,
  not_found: 404,
  blocked_by_rule: 405,
  conflict: 409,
  precondition_failed: 412,
  rate_limited: 429,
  unavailable: 503,
  // WebDAV's status for "cannot store what the request needs" (RFC 4918): not 503, which says
  // "try another node or shortly" of a state that lasts until an operator frees space.
  insufficient_storage: 507,
};

/**
 * What a 503 asks clients to wait while a store the request needs (the database, Redis) is
 * unreachable, and a 507 while its disk is full (writes resume within seconds of space freed).
 */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = '5';

/** What browsers may read of a 429 answer (Access-Control-Expose-Headers). */
export const RATE_LIMIT_HEADERS = 'retry-after, ratelimit-limit, ratelimit-remaining, ratelimit-reset';

/**
 * The headers an error adds to its answer. A 429 carries `Retry-After` (seconds) and the IETF
 * draft's (draft-ietf-httpapi-ratelimit-headers-06) `RateLimit-Limit`, `RateLimit-Remaining`,
 * `RateLimit-Reset` (seconds until the window ends). A 503 and a 507 carry `Retry-After`.
 */
export function errorHeaders(err: DomainError): [string, string][] | undefined {
  if (err.kind === 'unavailable' || err.kind === 'insufficient_storage') return [['retry-after', UNAVAILABLE_RETRY_AFTER_SECONDS]];
  if (!(err instanceof RateLimited)) return undefined;
  const retryAfter = String(err.retryAfter);
  return [
    ['retry-after', retryAfter],
    ['ratelimit-limit', String(err.rate.points)],
    ['ratelimit-remaining', '0'],
    ['ratelimit-reset', retryAfter],
  ];
}
