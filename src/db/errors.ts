import type { Logger } from '../logger.js';

/** Postgres errors as node-postgres reports them, or PGlite through drizzle's wrapper (in `cause`). */
interface PgError {
  code?: string;
  constraint?: string;
  cause?: PgError;
}

function pgError(err: unknown): PgError | undefined {
  const e = err as PgError | null;
  return (e?.code === undefined ? e?.cause : e) ?? undefined;
}

/** True for a unique-constraint violation. */
export function isUniqueViolation(err: unknown): boolean {
  return pgError(err)?.code === '23505';
}

/** The unique index a failed insert or update collided with, or undefined for any other error. */
export function violatedUniqueIndex(err: unknown): string | undefined {
  const pg = pgError(err);
  return pg?.code === '23505' ? (pg.constraint ?? '') : undefined;
}

/** True when the statement was cancelled by its statement_timeout (SQLSTATE 57014). */
export function isStatementTimeout(err: unknown): boolean {
  return pgError(err)?.code === '57014';
}

/** True when a row pointed at something deleted meanwhile (a comment's conversation). */
export function violatedForeignKey(err: unknown): boolean {
  return pgError(err)?.code === '23503';
}

/**
 * SQLSTATE 53100 (disk_full: a data file, the WAL or a transaction-status file could not grow).
 * Postgres names other errors the operating system reports for a full disk or quota by their
 * text only (a file it could not create, a block it could not write).
 */
const OUT_OF_SPACE_STATE = '53100';
const OUT_OF_SPACE_MESSAGE = /No space left on device|Disk quota exceeded/;

/** True when a statement failed because the database's disk (or its quota) is full. */
export function isOutOfSpace(err: unknown): boolean {
  for (let e = err as (PgError & { message?: string }) | null | undefined, depth = 0; e != null && depth < 5; e = e.cause, depth++) {
    if (e.code === OUT_OF_SPACE_STATE || e.code === 'ENOSPC' || e.code === 'EDQUOT') return true;
    if (typeof e.message === 'string' && OUT_OF_SPACE_MESSAGE.test(e.message)) return true;
  }
  return false;
}

/**
 * True when no write can succeed now, whichever it is: the database is out of reach or its disk
 * is full. A failed batch is then not written again item by item.
 */
export function failsEveryWrite(err: unknown): boolean {
  return isDatabaseUnavailable(err) || isOutOfSpace(err);
}

/**
 * How work that runs on its own (sweeps, deliveries, upkeep) logs a failed turn: at debug level
 * when the disk is full (StorageGuard logs that state, once), as an error otherwise. The work
 * tries again on its next turn.
 */
export function logFailedTurn(log: Logger, err: unknown, what: string): void {
  if (isOutOfSpace(err)) log.debug({ err }, `${what}: the disk is full`);
  else log.error({ err }, what);
}

/**
 * DDL the server makes again at every start (its commit triggers): on a full disk it cannot be
 * written, and what an earlier start made stays as it was (the failed statement changed nothing),
 * so the start goes on, to serve reads, rather than failing.
 */
export async function remakeUnlessFull(ddl: Promise<unknown>, log: Logger, what: string): Promise<void> {
  try {
    await ddl;
  } catch (err) {
    if (!isOutOfSpace(err)) throw err;
    log.warn({ err }, `the disk is full: ${what} stay as an earlier start made them`);
  }
}

/** Socket errors of a database that is down, restarting or out of reach. */
const UNREACHABLE = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE']);
/**
 * SQLSTATEs of a server that refuses work for now: shutting down, starting, out of connections, or
 * a standby refusing writes (a failover under way, or a pooler still pointing at the demoted
 * primary). Class 08: the connection broke.
 */
/** While the database is unreachable (a failover, a restart), work that must not be lost is tried again this often. */
export const UNAVAILABLE_RETRY_MS = 500;

const UNAVAILABLE_STATES = new Set(['57P01', '57P02', '57P03', '53300', '25006']);
/** node-postgres reports a connection lost or never made by message only. */
const UNAVAILABLE_MESSAGE = /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error)/;

/**
 * True when the database could not be reached or dropped the connection: nothing was wrong with
 * the request, and it may succeed shortly (answered 503 with Retry-After, not 500).
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  for (let e = err as (PgError & { message?: string; errors?: unknown[] }) | null | undefined, depth = 0; e != null && depth < 5; e = e.cause, depth++) {
    const code = e.code ?? '';
    if (UNREACHABLE.has(code) || UNAVAILABLE_STATES.has(code) || code.startsWith('08')) return true;
    if (typeof e.message === 'string' && UNAVAILABLE_MESSAGE.test(e.message)) return true;
    if (Array.isArray(e.errors) && e.errors.some(isDatabaseUnavailable)) return true;
  }
  return false;
}
