/** Timestamps in responses: ISO 8601 UTC with milliseconds, null when absent. */
export const isoOrNull = (d: Date | null): string | null => (d === null ? null : d.toISOString());
