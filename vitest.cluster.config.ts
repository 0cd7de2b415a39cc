import { defineConfig } from 'vitest/config';

/** Needs DATABASE_URL and REDIS_URL: these tests start several server processes themselves. */
export default defineConfig({
  test: {
    include: ['test/cluster/**/*.test.ts'],
    globalSetup: ['test/helpers/built-server.ts'],
    testTimeout: 60_000,
    hookTimeout: 90_000,
    pool: 'forks',
    fileParallelism: false,
  },
});
