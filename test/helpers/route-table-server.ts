// Starts the real server (as src/main.ts does, from the environment) and prints, as its one
// line of output, its port and the route table it serves, for tests that cover every route.
// The server's modules need Node's own loader (import.meta.resolve), so this runs as a process.
import '../../src/http/header-limit.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { startServer } from '../../src/server.js';

export interface ServedRoute {
  method: string;
  path: string;
  scope: string;
  /** Keys of the query and body object schemas; undefined without a schema. */
  query: string[] | undefined;
  body: string[] | undefined;
  errors: number[];
}

/** The keys of a valibot object schema (possibly at the head of a pipe): what a client may send. */
function entryNames(schema: unknown): string[] | undefined {
  if (schema === undefined) return undefined;
  const s = schema as { entries?: Record<string, unknown>; pipe?: unknown[] };
  if (s.entries !== undefined) return Object.keys(s.entries);
  return Array.isArray(s.pipe) ? (entryNames(s.pipe[0]) ?? []) : [];
}

const log = createLogger(process.env['LOG_LEVEL'] ?? 'silent');
const server = await startServer(loadConfig(process.env), log);
const routes: ServedRoute[] = server.routes.map((r) => ({
  method: r.method,
  path: r.path,
  scope: r.scope ?? 'app',
  query: entryNames(r.query),
  body: entryNames(r.body),
  errors: [...(r.errors ?? [])],
}));
process.stdout.write(`${JSON.stringify({ port: server.port, routes })}\n`);
process.on('SIGTERM', () => void server.stop().then(() => log.flush(() => process.exit(0))));
