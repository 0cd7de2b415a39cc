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

/** True when a row pointed at something deleted meanwhile (a comment's conversation). */
export function violatedForeignKey(err: unknown): boolean {
  return pgError(err)?.code === '23503';
}
