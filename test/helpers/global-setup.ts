import type { TestProject } from 'vitest/node';
import { buildServerIfStale } from './built-server.js';
import { useDataTemplate } from './data-template.js';
import { dataTemplate } from './kept-template.js';
import { spawnServer, type SpawnedServer } from './spawn.js';

let server: SpawnedServer | undefined;

/** The server built, the embedded database's template (see data-template.ts), then one shared server for the suite; each test file makes its own application on it. */
export async function setup(project: TestProject): Promise<void> {
  // The build and the template's first start run at once: each is one core's work.
  const [template] = await Promise.all([process.env['DATABASE_URL'] === undefined ? dataTemplate() : undefined, buildServerIfStale()]);
  if (template !== undefined) useDataTemplate(template);
  // Every test file reaches this server from 127.0.0.1, like many clients behind one NAT: their
  // deliberate refused credentials together would lock the address out, so the budget is higher.
  // For the same reason the searches it runs at once are not capped at a node's default of 4: the
  // fuzzers search in parallel beside every other file (test/limits/searches.test.ts proves the cap on a server of its own).
  server = await spawnServer({ RATE_LIMIT_AUTH_FAILURES: '100000/1m', SEARCH_MAX_CONCURRENT: '1000' });
  project.provide('baseUrl', server.url);
}

export async function teardown(): Promise<void> {
  await server?.stop();
}

declare module 'vitest' {
  export interface ProvidedContext {
    baseUrl: string;
  }
}
