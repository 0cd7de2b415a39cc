import { afterAll, beforeAll } from 'vitest';
import { newApp, type TestApp } from './api.js';
import { type SpawnedServer, spawnServer } from './spawn.js';

export interface OwnServer {
  server: SpawnedServer;
  /** An application on that server. */
  app: TestApp;
}

/** A server process of the suite's own (for settings the shared one must not have), started before its tests with one app on it. */
export function ownServerForSuite(env: Record<string, string>): OwnServer {
  let started: OwnServer | undefined;
  beforeAll(async () => {
    const server = await spawnServer(env);
    started = { server, app: await newApp({}, server.url) };
  });
  afterAll(() => started?.server.stop());
  const get = (): OwnServer => {
    if (started === undefined) throw new Error('the server has not started');
    return started;
  };
  return {
    get server() {
      return get().server;
    },
    get app() {
      return get().app;
    },
  };
}
