import type { TestProject } from 'vitest/node';
import { spawnServer, type SpawnedServer } from './spawn.js';

let server: SpawnedServer | undefined;

/** One shared server for the suite; each test file makes its own application on it. */
export async function setup(project: TestProject): Promise<void> {
  server = await spawnServer();
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
