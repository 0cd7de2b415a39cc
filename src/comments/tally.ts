import { sql, type SQL } from 'drizzle-orm';
import type { AnyPgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { Tally } from '../db/schema/comments.js';

/**
 * A subquery aggregating the rows of a reactions or votes table into the `Tally[]` kept on the
 * parent row: one entry per type (in the order each type first appeared), with its users.
 */
export function tallySql(table: PgTable, type: AnyPgColumn, user: AnyPgColumn, added: AnyPgColumn, where: SQL): SQL<Tally[]> {
  return sql<Tally[]>`(select coalesce(jsonb_agg(jsonb_build_object('type', g.type, 'count', g.n, 'users', g.users) order by g.first, g.type), '[]'::jsonb)
    from (select ${type} as type, count(*)::int as n, jsonb_agg(${user} order by ${added}, ${user}) as users, min(${added}) as first
          from ${table} where ${where} group by ${type}) g)`;
}

/** A subquery counting the rows of a table that match. */
export function countSql(table: PgTable, where: SQL): SQL<number> {
  return sql<number>`(select count(*)::int from ${table} where ${where})`;
}
