import { sql, type SQL } from 'drizzle-orm';
import type { AnyPgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { Tally } from '../../db/schema/comments.js';

/**
 * A subquery aggregating the rows of a reactions or votes table into the `Tally[]` kept on the
 * parent row: one entry per type (in the order each type first appeared), with its users.
 */
export function tallySql(table: PgTable, type: AnyPgColumn, user: AnyPgColumn, added: AnyPgColumn, where: SQL): SQL<Tally[]> {
  return sql<Tally[]>`(select coalesce(jsonb_agg(jsonb_build_object('type', g.type, 'count', g.n, 'users', g.users) order by g.first, g.type), '[]'::jsonb)
    from (select ${type} as type, count(*)::int as n, jsonb_agg(${user} order by ${added}, ${user}) as users, min(${added}) as first
          from ${table} where ${where} group by ${type}) g)`;
}

/**
 * Un-reacting to zero keeps the reaction's entry, with count 0 and no users (api-surface.md,
 * settled from the SDKs): the recount from rows drops it, so it is put back in its place.
 * undefined when nothing was dropped.
 */
export function keepingEmptied(before: Tally[], after: Tally[]): Tally[] | undefined {
  const byType = new Map(after.map((t) => [t.type, t]));
  if (before.every((t) => byType.has(t.type))) return undefined;
  const known = new Set(before.map((t) => t.type));
  return [...before.map((t) => byType.get(t.type) ?? { type: t.type, count: 0, users: [] }), ...after.filter((t) => !known.has(t.type))];
}

/** A subquery counting the rows of a table that match. */
export function countSql(table: PgTable, where: SQL): SQL<number> {
  return sql<number>`(select count(*)::int from ${table} where ${where})`;
}
