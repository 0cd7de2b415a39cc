import { DomainError } from '../errors.js';
import { WS_ERROR_CODE } from './error-codes.js';
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
  if (err instanceof DomainError && err.kind !== 'unavailable') return { code: WS_ERROR_CODE[err.kind], message: err.message };
  return undefined;
}
