import type { ErrorKind } from '../errors.js';
import type { ErrorCode } from './protocol.js';

/**
 * The `error` frame code of each kind of domain error (docs/realtime.md, Error codes). The
 * protocol has no code of its own for a conflict, a rule or a setting: those are `bad_request`.
 */
export const WS_ERROR_CODE: Readonly<Record<ErrorKind, ErrorCode>> = {
  invalid: 'bad_request',
  unauthorized: 'forbidden',
  forbidden: 'forbidden',
  not_found: 'not_found',
  blocked_by_rule: 'bad_request',
  conflict: 'bad_request',
  precondition_failed: 'bad_request',
  rate_limited: 'rate_limited',
  unavailable: 'internal',
  insufficient_storage: 'internal',
};
