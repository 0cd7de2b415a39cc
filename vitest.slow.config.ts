import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import fast, { SLOW_TESTS } from './vitest.config.js';

/** Proofs at volume (floods, crowds, kill -9 under load) measure a machine they have to themselves: vitest's default, one fewer than the cores. */
const WORKERS = Math.max(1, availableParallelism() - 1);

/**
 * `npm run test:slow`: the long proofs `npm test` leaves out (files named `*.slow.test.ts`, outside
 * test/cluster), on the same settings but for the workers: fewer at once, and each file in a
 * process of its own (what a proof reads of its own process is its alone), with V8's defaults.
 */
export default defineConfig({
  test: {
    ...fast.test,
    include: [SLOW_TESTS],
    exclude: ['test/cluster/**', 'node_modules/**'],
    pool: 'forks',
    isolate: true,
    minWorkers: WORKERS,
    maxWorkers: WORKERS,
    env: {},
  },
});
