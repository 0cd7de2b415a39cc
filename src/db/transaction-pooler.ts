import pg from 'pg';
import type { Logger } from '../logger.js';

/**
 * Behind a pooler in transaction mode (PgBouncer's pool_mode = transaction) each transaction may
 * run on another server connection, so nothing may outlive one. A named statement does: node-postgres
 * parses it once per connection and then only binds it, and the next transaction meets a server
 * connection that never saw it (`prepared statement "…" does not exist`, SQLSTATE 26000) or one
 * another client already prepared it on (`… already exists`, 42P05). In the pooler-safe mode every
 * query of a pool's clients drops its name and runs as an unnamed statement of the extended
 * protocol (parse, bind and execute in one exchange), whoever made it: `preparedRows`, drizzle's
 * `.prepare()`, or a raw `pool.query({ name })`.
 */
export class StatementNaming {
  private unnamed: boolean;

  constructor(
    pooler: 'none' | 'transaction',
    private readonly log: Logger,
  ) {
    this.unnamed = pooler === 'transaction';
  }

  get pooler(): 'none' | 'transaction' {
    return this.unnamed ? 'transaction' : 'none';
  }

  /** For good: a forgotten DATABASE_POOLER=transaction must not cost a write, so the pool adapts and says once what to set. */
  switchToUnnamed(err: unknown): void {
    if (this.unnamed) return;
    this.unnamed = true;
    this.log.error(
      { err },
      'a named statement met a server connection that did not prepare it: the database is behind a transaction pooler; the pool now runs every statement unnamed. Set DATABASE_POOLER=transaction',
    );
  }

  /** A client class whose named queries follow this naming: dropped in the pooler-safe mode, else retried unnamed (after switching) when the pooler refuses them. */
  clientClass(): typeof pg.Client {
    const naming = this;
    // Not named …Pool…: drizzle takes a client whose class name says Pool for a pool.
    class StatementClient extends pg.Client {}
    // Assigned rather than overridden: `query` has a dozen overloads and this keeps them all.
    (StatementClient.prototype as unknown as { query: Query }).query = function (this: pg.Client, config, ...rest) {
      if (!isNamed(config)) return clientQuery.call(this, config, ...rest);
      if (naming.unnamed) return clientQuery.call(this, { ...config, name: undefined }, ...rest);
      const callback = typeof rest.at(-1) === 'function' ? (rest.pop() as Callback) : undefined;
      const values = rest[0];
      const run = (c: object) => clientQuery.call(this, c, values) as Promise<pg.QueryResult>;
      const result = run(config).catch((err: unknown) => {
        if (!isPoolerRefusal(err)) throw err;
        naming.switchToUnnamed(err);
        return run({ ...config, name: undefined });
      });
      if (callback === undefined) return result;
      result.then(
        (r) => callback(null, r),
        (err: unknown) => callback(err),
      );
      return undefined;
    };
    return StatementClient;
  }
}

type Query = (config: unknown, ...rest: unknown[]) => unknown;
type Callback = (err: unknown, result?: pg.QueryResult) => void;
const clientQuery = pg.Client.prototype.query as Query;

function isNamed(config: unknown): config is { name: string } {
  return typeof config === 'object' && config !== null && 'name' in config && config.name !== undefined && !('submit' in config);
}

/** SQLSTATE 26000 (no such prepared statement) and 42P05 (it already exists): a named statement on a server connection shared with other clients. */
function isPoolerRefusal(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === '26000' || code === '42P05';
}

/**
 * Whether `url` leads to server connections shared between client connections (a transaction or
 * statement pooler), found at start: two client connections one after the other, each outside a
 * transaction, that meet the same server process could not on a direct connection or a session
 * pooler. A pooler that hands out another server connection each time is not found here; the
 * first statement it refuses is (see `StatementNaming`).
 */
export async function sharesServerConnections(url: string, connectionTimeoutMillis: number): Promise<boolean> {
  const clients = [new pg.Client({ connectionString: url, connectionTimeoutMillis }), new pg.Client({ connectionString: url, connectionTimeoutMillis })];
  try {
    for (const c of clients) await c.connect();
    const pidOf = async (c: pg.Client) => (await c.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]?.pid;
    for (let round = 0; round < 3; round++) {
      const [first, second] = round % 2 === 0 ? clients : [clients[1], clients[0]];
      if ((await pidOf(first as pg.Client)) === (await pidOf(second as pg.Client))) return true;
    }
    return false;
  } finally {
    await Promise.all(clients.map((c) => c.end().catch(() => undefined)));
  }
}
