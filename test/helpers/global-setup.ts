import type { TestProject } from 'vitest/node';
import { spawnServer, type SpawnedServer } from './spawn.js';

let server: SpawnedServer | undefined;

/** One shared server for the suite; each test file makes its own application on it. */
export async function setup(project: TestProject): Promise<void> {
  // Every test file reaches this server from 127.0.0.1, like many clients behind one NAT: their
  // deliberate refused credentials together would lock the address out, so the budget is higher.
  server = await spawnServer({ RATE_LIMIT_AUTH_FAILURES: '100000/1m' });
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
