import { defineConfig } from 'vitest/config';

/** The console in a real headless Chromium (/usr/bin/chromium, Debian's `chromium` package). */
export default defineConfig({
  test: {
    include: ['test/browser/**/*.e2e.ts'],
    globalSetup: ['test/helpers/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 90_000,
    pool: 'forks',
    fileParallelism: false,
  },
});
