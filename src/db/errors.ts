const UNIQUE_VIOLATION = '23505';

/** True for a Postgres unique-constraint violation, as node-postgres or PGlite (through drizzle's wrapper) report it. */
export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string; cause?: { code?: string } } | null;
  return e?.code === UNIQUE_VIOLATION || e?.cause?.code === UNIQUE_VIOLATION;
}
