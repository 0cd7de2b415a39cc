/**
 * The server the fuzz test sends its requests to: started like src/main.ts, it prints one JSON
 * line with its port and its route table (method, path, scope and the fields of the body and
 * query schemas), so the fuzzer covers every route there is. SIGTERM stops it.
 */
import '../../src/http/header-limit.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { startServer } from '../../src/server.js';

export interface RouteEntry {
  method: string;
  path: string;
  scope: string;
  body: string[] | null;
  query: string[] | null;
}

/** The field names of an object schema (valibot objects keep them in `entries`). */
const fieldsOf = (schema: unknown): string[] | null => (schema === undefined ? null : Object.keys((schema as { entries?: object }).entries ?? {}));

const log = createLogger(process.env['LOG_LEVEL'] ?? 'error');
const server = await startServer(loadConfig(process.env), log);
const routes: RouteEntry[] = server.routes.map((r) => ({ method: r.method, path: r.path, scope: r.scope ?? 'app', body: fieldsOf(r.body), query: fieldsOf(r.query) }));
process.stdout.write(`${JSON.stringify({ port: server.port, routes })}\n`);
process.on('SIGTERM', () => void server.stop().then(() => log.flush(() => process.exit(0))));
