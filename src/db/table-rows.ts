import { getTableColumns, sql, type SQL } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';

export interface TableRows<Row> {
  /** The select list: each column named by its field. */
  list: SQL;
  /** A row as the driver parsed it, as drizzle would return it (each column's own mapping). */
  of(row: Record<string, unknown>): Row;
  /** A row as `to_jsonb` writes it (keyed by column name), as drizzle would return it. */
  ofJson(row: Record<string, unknown>): Row;
}

/**
 * A table's rows read by a raw statement (a named one, see `preparedRows`), without drizzle's
 * builder and mapping on every call: the select list and the row mapping are made once.
 */
export function tableRows<T extends PgTable>(table: T): TableRows<T['$inferSelect']> {
  const columns = Object.entries(getTableColumns(table));
  const list = sql.raw(columns.map(([field, column]) => `"${column.name}" as "${field}"`).join(', '));
  return {
    list,
    of(row) {
      for (const [field, column] of columns) {
        const value = row[field];
        if (value !== null && value !== undefined) row[field] = column.mapFromDriverValue(value);
      }
      return row as T['$inferSelect'];
    },
    ofJson(row) {
      const mapped: Record<string, unknown> = {};
      for (const [field, column] of columns) {
        const value = row[column.name];
        mapped[field] = value === null || value === undefined ? null : column.mapFromDriverValue(value);
      }
      return mapped as T['$inferSelect'];
    },
  };
}
