import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/**
 * `npm test`: the behaviour of every route and frame, for a newcomer's first run (minutes). The
 * long proofs (kill -9 loops, floods, crowds, soaks) are named `*.slow.test.ts` and run with
 * `npm run test:slow` (vitest.slow.config.ts); a new test file is in this suite unless so named.
 */
export const SLOW_TESTS = 'test/**/*.slow.test.ts';

/**
 * Most of a test file's time is spent waiting on a server process (its own, or the shared one), so
 * more files run at once than there are cores (vitest's default is one fewer than the cores).
 */
const WORKERS = Math.max(3, availableParallelism());

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/cluster/**', SLOW_TESTS, 'node_modules/**'],
    globalSetup: ['test/helpers/global-setup.ts'],
    // A test that starts a server of its own inside its body, with two other files at work beside it, may need most of a minute.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Each of the WORKERS processes runs file after file, keeping the helpers and the modules they
    // load: a fresh worker per file cost about a second of CPU each (111 files: 171 s against 210 s
    // with a worker thread per file). Files share nothing else: each starts its own app, and its own
    // server when it needs settings. As many workers at the end as at the start: with fewer
    // (vitest's default minimum is one below the cores), the pool's extra processes are ended while
    // vitest still waits on them, an "Error: Terminating worker thread" that fails the run.
    pool: 'forks',
    isolate: false,
    minWorkers: WORKERS,
    maxWorkers: WORKERS,
    env: {
      // Most of the ~45 servers files start of their own answer a few requests: V8's baseline
      // compiler alone for the embedded database's WebAssembly takes ~2 s of CPU off each start
      // (4.0 s → 2.1 s; the run 277 s → 210 s). The suite's shared server, started by the global
      // setup (outside the workers), keeps the optimising tier for the load every file puts on it.
      ENGAGE_TEST_NODE_FLAGS: '--liftoff-only',
    },
  },
});
