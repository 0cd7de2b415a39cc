import { sql } from 'drizzle-orm';
import { unavailable } from '../errors.js';
import type { Database, Queryable } from './client.js';
import { isStatementTimeout } from './errors.js';

export interface SearchBounds {
  /** A search statement running longer is cancelled (Postgres) and answered 503. */
  timeoutMs: number;
  /** Searches this node runs at once; one more is answered 503 at once instead of waiting for a connection. */
  maxConcurrent: number;
}

/**
 * Runs the searches (events by body, users by name or handle, rooms by name) within bounds, so
 * that no client can hold the database with them: at most `maxConcurrent` at once per node, each
 * under a statement timeout. On Postgres the timeout is set for the search's own transaction
 * (`set_config(…, true)`), so other statements on the connection keep theirs. PGlite runs a
 * statement to its end on the event loop and cannot be interrupted: there the bounds are the
 * trigram indexes and the per-user budget (docs/limits.md, Searches).
 */
export class BoundedSearch {
  private running = 0;

  constructor(
    private readonly database: Database,
    private readonly bounds: SearchBounds,
  ) {}

  async run<T>(search: (q: Queryable) => Promise<T>): Promise<T> {
    if (this.running >= this.bounds.maxConcurrent) throw unavailable('Too many searches are running on this server; try again shortly.');
    this.running += 1;
    try {
      if (this.database.kind === 'embedded') return await search(this.database.db);
      return await this.database.db.transaction(async (tx) => {
        await tx.execute(sql`select set_config('statement_timeout', ${String(this.bounds.timeoutMs)}, true)`);
        return search(tx);
      });
    } catch (err) {
      if (isStatementTimeout(err)) throw unavailable(`The search took longer than ${this.bounds.timeoutMs} ms and was stopped; narrow it (a longer text, a room, a user).`);
      throw err;
    } finally {
      this.running -= 1;
    }
  }
}
