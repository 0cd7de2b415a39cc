/**
 * Prints the server's route table as JSON (method, path, scope and the fields of its body and
 * query schemas) and exits: the fuzz test runs it with tsx in a child process, because the
 * server cannot be imported into a vitest worker. Starts a real server (port 0) to build it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

const dataDir = mkdtempSync(join(tmpdir(), 'engage-routes-'));
const env: Record<string, string> = { PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, MANAGE_TOKEN: 'route-table-manage-token' };
if (process.env['DATABASE_URL']) env['DATABASE_URL'] = process.env['DATABASE_URL'];
const server = await startServer(loadConfig(env), createLogger('silent'));
const table: RouteEntry[] = server.routes.map((r) => ({ method: r.method, path: r.path, scope: r.scope ?? 'app', body: fieldsOf(r.body), query: fieldsOf(r.query) }));
await server.stop();
rmSync(dataDir, { recursive: true, force: true });
process.stdout.write(`${JSON.stringify(table)}\n`);
process.exit(0);
