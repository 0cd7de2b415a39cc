import pg from 'pg';

/**
 * Behind a pooler in transaction mode (PgBouncer's pool_mode = transaction) each transaction may
 * run on another server connection, so nothing may outlive one. A named statement does: node-postgres
 * parses it once per connection and then only binds it, and the next transaction meets a server
 * connection that never saw it (`prepared statement "…" does not exist`). Every query of this
 * client class drops its name and runs as an unnamed statement of the extended protocol (parse,
 * bind and execute in one exchange), whoever made it: `preparedRows`, drizzle's `.prepare()`, or a
 * raw `pool.query({ name })`.
 */
export class UnnamedStatementClient extends pg.Client {}

type Query = (config: unknown, ...rest: unknown[]) => unknown;
const namedQuery = pg.Client.prototype.query as Query;
// Assigned rather than overridden: `query` has a dozen overloads and this keeps them all.
(UnnamedStatementClient.prototype as unknown as { query: Query }).query = function (this: pg.Client, config, ...rest) {
  const named = typeof config === 'object' && config !== null && 'name' in config && !('submit' in config);
  return namedQuery.call(this, named ? { ...config, name: undefined } : config, ...rest);
};
