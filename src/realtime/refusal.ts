import { ApiError } from '../http/errors.js';
import type { ErrorCode } from './protocol.js';

/** A frame refused by realtime itself, with the error code to answer. */
export class Refusal extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** The error frame a failure answers with; undefined for a failure of the server's own (to log, answered `internal`). */
export function refusalOf(err: unknown): { code: ErrorCode; message: string } | undefined {
  if (err instanceof Refusal) return err;
  if (err instanceof ApiError && err.status < 500) {
    const code: ErrorCode = err.status === 404 ? 'not_found' : err.status === 403 ? 'forbidden' : 'bad_request';
    return { code, message: err.message };
  }
  return undefined;
}
