import { defineConfig } from 'vitest/config';
import fast, { SLOW_TESTS } from './vitest.config.js';

/** `npm run test:slow`: the long proofs `npm test` leaves out (files named `*.slow.test.ts`, outside test/cluster), on the same settings. */
export default defineConfig({
  test: { ...fast.test, include: [SLOW_TESTS], exclude: ['test/cluster/**', 'node_modules/**'] },
});
