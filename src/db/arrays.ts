import { sql, type SQL } from 'drizzle-orm';

const quote = (s: string) => `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;

/**
 * A whole array as ONE bind parameter (drizzle would otherwise expand a JS array into one
 * parameter per element), written as a Postgres array literal so node-postgres and PGlite
 * send the same text. Use it with a cast: `${textArray(ids)}::text[]`.
 */
export function textArray(values: readonly string[]): SQL {
  return sql`${textArrayLiteral(values)}`;
}

/** `textArray`'s value, for a placeholder of a statement made once (see statementOnce). */
export const textArrayLiteral = (values: readonly string[]): string => `{${values.map(quote).join(',')}}`;

export function intArray(values: readonly number[]): SQL {
  return sql`${intArrayLiteral(values)}`;
}

/** `intArray`'s value (null: SQL null), for a placeholder of a statement made once (see statementOnce). */
export const intArrayLiteral = (values: readonly (number | null)[]): string => `{${values.map((n) => (n === null ? 'NULL' : String(Math.trunc(n)))).join(',')}}`;

export function boolArray(values: readonly boolean[]): SQL {
  return sql`${`{${values.map((b) => (b ? 't' : 'f')).join(',')}}`}`;
}

/**
 * The array placeholder `name` of a statement made once (statementOnce), as a subselect the planner
 * does not look into: every call's plan then costs the same guess (ten elements), and Postgres keeps
 * one generic plan. Seen as the value itself, a call of one key costs less than that guess, so when
 * a statement's first five calls pass few keys Postgres plans it again on every later call (on a
 * grown store a room read by id was: 110–270 µs a call in PGlite, against about 50 on one plan).
 * The cast after the parentheses makes the subselect a value: `any((select …))` would compare each
 * row of it. Use it where an array is expected: `= any(${plannedOnce('ids', 'text[]')})`, `unnest(${…})`.
 */
export const plannedOnce = (name: string, type: 'text[]' | 'bigint[]'): SQL => sql`(select ${sql.placeholder(name)}::${sql.raw(type)})::${sql.raw(type)}`;
