import { describe, expect, inject, it } from 'vitest';
import { TcpProxy } from '../client/proxy.js';
import { MANAGE_TOKEN } from '../helpers/spawn.js';
import { runLoadtest } from './loadtest-run.js';

/** The load tester against the suite's server, making its own application with the manage token. */
const loadtest = (args: string[], onStderr?: (text: string) => void) => runLoadtest(['--url', inject('baseUrl'), '--manage-token', MANAGE_TOKEN, ...args], onStderr);

describe('npm run loadtest', () => {
  it('drives a mixed match against a running server and reads every acknowledged write back', async () => {
    const run = await loadtest(['--scenario', 'mixed', '--fans', '12', '--duration', '3']);
    const summary = run.summary();
    expect(summary, run.stdout + run.stderr).toMatchObject({
      scenario: 'mixed',
      fans: 12,
      errors: 0,
      refused: 0,
      lost: 0,
      overcounted: 0,
      undelivered: 0,
      repeats: 0,
      pollMisses: 0,
      pollRepeats: 0,
      socketsClosed: 0,
      sloMissed: [],
    });
    expect(summary['requests']).toBeGreaterThan(12 * 3);
    expect(summary['deliveries']).toBeGreaterThan(0);
    expect(summary['p99']).toBeGreaterThan(0);
    expect(summary['deliveryP99']).toBeGreaterThan(0);
    expect(run.stdout).toContain("| hot event's like count | 1 | 12 | 12 | 0 | 0 |");
    expect(run.stderr).toMatch(/rate limits: chat posts .* round-robin over \d+ users/);
    expect(run.stderr).toMatch(/^\[\d+ s of 3\] requests \d+/m);
    expect(run.code).toBe(0);
  }, 90_000);

  it('gets dropped sockets back and resumes them from their cursor: nothing missed, nothing twice', async () => {
    const proxy = await TcpProxy.start(Number(new URL(inject('baseUrl')).port));
    let cut = false;
    const run = await loadtest(['--ws-url', proxy.url, '--scenario', 'chat', '--fans', '8', '--duration', '4', '--rate', '10'], (text) => {
      if (cut || !/^\[1 s of 4\]/m.test(text)) return;
      // Every socket is reset, and new connections are refused for a second while posts go on.
      cut = true;
      proxy.cut();
      setTimeout(() => proxy.restore(), 1000);
    });
    await proxy.close();
    const summary = run.summary();
    expect(cut).toBe(true);
    expect(summary, run.stdout + run.stderr).toMatchObject({ errors: 0, lost: 0, undelivered: 0, repeats: 0, socketsClosed: 0, sockets: 8 });
    expect(summary['reconnects']).toBeGreaterThanOrEqual(8);
    expect(summary['deliveries']).toBe((summary['sockets'] as number) * 40);
    expect(run.code).toBe(0);
  }, 90_000);

  it('exits non-zero when a latency objective is missed, and says which', async () => {
    const run = await loadtest(['--scenario', 'chat', '--fans', '4', '--duration', '1', '--rate', '4', '--slo', 'p99=0.001,deliveryP99=0.001']);
    const summary = run.summary();
    expect(summary['errors']).toBe(0);
    expect(summary['sloMissed']).toEqual([expect.stringMatching(/^p99 [\d.]+ > 0.001$/), expect.stringMatching(/^deliveryP99 [\d.]+ > 0.001$/)]);
    expect(run.stdout).toContain('SLO missed: p99');
    expect(run.code).toBe(1);
  }, 90_000);

  it('refuses bad arguments with the usage and exit code 2', async () => {
    const run = await loadtest(['--scenario', 'derby']);
    expect(run.stderr).toContain('--scenario must be one of kickoff, goal, chat, watch, mixed');
    expect(run.stderr).toContain('npm run loadtest -- --url URL');
    expect(run.code).toBe(2);
  }, 30_000);
});
