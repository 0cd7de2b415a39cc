import { newApp, type TestApp } from './api.js';
import { startedForSuite } from './for-suite.js';
import { type SpawnedServer, spawnServer } from './spawn.js';

export interface OwnServer {
  server: SpawnedServer;
  /** An application on that server. */
  app: TestApp;
}

/** A server process of the suite's own (for settings the shared one must not have), started before its tests with one app on it. */
export function ownServerForSuite(env: Record<string, string>): OwnServer {
  const started = startedForSuite(
    async (): Promise<OwnServer> => {
      const server = await spawnServer(env);
      return { server, app: await newApp({}, server.url) };
    },
    (own) => own.server.stop(),
  );
  return {
    get server() {
      return started().server;
    },
    get app() {
      return started().app;
    },
  };
}
