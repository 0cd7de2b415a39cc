import { describe, expect, it } from 'vitest';
import { DEFERRABLE_PAGES, LONGEST_DEFERRAL_MS, LULL_UTILIZATION, type TableToTend, waitsForLull } from '../../src/db/embedded-vacuum.js';

/**
 * Which upkeep of the embedded database waits for a lull (the serving thread busy less than
 * LULL_UTILIZATION since the last look). The slow suite's embedded-vacuum test shows a server
 * putting an analysis off under a crowd and doing it once quiet; the rules are checked here,
 * the ten-minute bound among them.
 */
const grownLarge: TableToTend = { table: 'chat_events', pages: DEFERRABLE_PAGES, grown: true, dead: false, old: false };
const BUSY = LULL_UTILIZATION;
const QUIET = LULL_UTILIZATION - 0.01;

describe('an analysis waiting for a lull', () => {
  it('waits while the serving thread is busy, for LONGEST_DEFERRAL_MS at most', () => {
    expect(waitsForLull(grownLarge, BUSY, 0)).toBe(true);
    expect(waitsForLull(grownLarge, 1, LONGEST_DEFERRAL_MS - 1)).toBe(true);
    expect(waitsForLull(grownLarge, 1, LONGEST_DEFERRAL_MS)).toBe(false);
    expect(waitsForLull(grownLarge, QUIET, 0)).toBe(false);
  });

  it('is only ever the analysis of a table analysed before at DEFERRABLE_PAGES or more: vacuums and freezes never wait', () => {
    expect(waitsForLull({ ...grownLarge, pages: DEFERRABLE_PAGES - 1 }, 1, 0)).toBe(false);
    // Never analysed: relpages is 0.
    expect(waitsForLull({ ...grownLarge, pages: 0 }, 1, 0)).toBe(false);
    expect(waitsForLull({ ...grownLarge, dead: true }, 1, 0)).toBe(false);
    expect(waitsForLull({ ...grownLarge, old: true }, 1, 0)).toBe(false);
  });
});
