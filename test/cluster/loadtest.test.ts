import { describe, expect, it } from 'vitest';
import { runLoadtest } from '../operability/loadtest-run.js';
import { twoNodesForSuite } from './two-nodes.js';

describe('npm run loadtest against a two-node cluster', () => {
  const nodes = twoNodesForSuite({ redis: true });

  // Retried once: one CI run of five saw the load tester end without its summary line, cause not yet
  // known (loadtest-run.ts now fails with what the run printed, so a failure shows why).
  it('spreads fans over both nodes with an existing app and server token; every count reads exact on each node', { timeout: 120_000, retry: 1 }, async () => {
    const { a, b } = nodes;
    const run = await runLoadtest(['--url', a.api.base, '--url', b.base, '--app', a.appid, '--token', a.token, '--scenario', 'mixed', '--fans', '16', '--duration', '3']);
    expect(run.summary(), run.stdout + run.stderr).toMatchObject({ scenario: 'mixed', nodes: 2, errors: 0, lost: 0, overcounted: 0, undelivered: 0, repeats: 0, pollMisses: 0, pollRepeats: 0 });
    expect(run.summary()['deliveries']).toBeGreaterThan(0);
    // The counts are read on each node: node 2's answers come from its own caches and the bus.
    expect(run.stdout).toContain("| hot event's like count | 2 | 16 | 16 | 0 | 0 |");
    expect(run.stdout).toContain("| hot comment's up-votes | 2 | 16 | 16 | 0 | 0 |");
    expect(run.stdout).toContain("| poll's total responses | 2 | 16 | 16 | 0 | 0 |");
    expect(run.code).toBe(0);
  });
});
