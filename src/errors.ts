/**
 * What went wrong, said once by the service that knows it and independently of how the client
 * asked: the HTTP server maps each kind to a status (src/http/error-status.ts), the WebSocket
 * endpoint to an `error` frame code (src/realtime/error-codes.ts).
 */
export type ErrorKind =
  /** The input is wrong; `errors` names each bad field and why. */
  | 'invalid'
  /** The credentials (API, user or management token) are missing or refused. */
  | 'unauthorized'
  /** The caller is known but may not do this (a ban, another user's object, a refusing webhook). */
  | 'forbidden'
  | 'not_found'
  /** A rule of the application or room refuses the content (profanity, handle characters). */
  | 'blocked_by_rule'
  /** The request contradicts what is stored (a customid or handle in use, no responses left). */
  | 'conflict'
  /** The application's settings do not allow the operation (user reporting off). */
  | 'precondition_failed'
  /** A budget is used up; see RateLimited for when to retry. */
  | 'rate_limited'
  /** A dependency (database, bus) is out of reach; try again later. */
  | 'unavailable'
  /** The database's disk is full: a write is refused until space is freed (reads go on). */
  | 'insufficient_storage';

/** An error a client caused or may see: its message, field errors and data reach the client. */
export class DomainError extends Error {
  constructor(
    readonly kind: ErrorKind,
    message: string,
    readonly errors: Record<string, string> = {},
    readonly data: unknown = null,
  ) {
    super(message);
  }
}

export const badRequest = (message: string, errors: Record<string, string> = {}) => new DomainError('invalid', message, errors);
export const unauthorized = (message: string) => new DomainError('unauthorized', message);
export const forbidden = (message: string, errors: Record<string, string> = {}) => new DomainError('forbidden', message, errors);
export const notFound = (message: string) => new DomainError('not_found', message);
export const conflict = (message: string, errors: Record<string, string> = {}) => new DomainError('conflict', message, errors);
export const blockedByRule = (message: string) => new DomainError('blocked_by_rule', message);
export const preconditionFailed = (message: string) => new DomainError('precondition_failed', message);
export const unavailable = (message: string, data: unknown = null) => new DomainError('unavailable', message, {}, data);
export const insufficientStorage = (message: string) => new DomainError('insufficient_storage', message);
