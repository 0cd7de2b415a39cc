import { afterAll, beforeAll } from 'vitest';

/**
 * Something a suite starts before its tests and stops after them (servers, clusters): returns
 * the reader tests call, which throws when the start failed or has not happened.
 */
export function startedForSuite<T>(start: () => Promise<T>, stop: (started: T) => Promise<void>, timeoutMs?: number): () => T {
  let started: T | undefined;
  beforeAll(async () => {
    started = await start();
  }, timeoutMs);
  afterAll(async () => {
    if (started !== undefined) await stop(started);
  });
  return () => {
    if (started === undefined) throw new Error('the suite’s servers have not started');
    return started;
  };
}
