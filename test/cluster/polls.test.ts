import { describe, expect, it } from 'vitest';
import { twoNodesForSuite } from './two-nodes.js';

/** Two server processes voting on one poll in one Postgres: each node's batches race the other's. */
describe('votes on one poll from two nodes', () => {
  const nodes = twoNodesForSuite({ redis: false });

  it('counts each voter once and keeps standings exact when both nodes take the same votes at once', async () => {
    const created = await nodes.a.api.post('poll/poll/create', { title: 'Across nodes' });
    const pollid = created.body.data.id as string;
    const added = await nodes.a.api.post(`poll/poll/${pollid}/choice`, { choices: [{ title: 'A' }, { title: 'B' }] });
    const choices = added.body.data.map((c: { id: string }) => c.id) as string[];
    const voters = Array.from({ length: 300 }, (_, i) => ({ userid: `x${i}`, choiceid: choices[i % 2] }));
    // Every vote goes to both nodes twice, all at once: exactly one of the four may count.
    const results = await Promise.all(voters.flatMap((v) => [nodes.a.api, nodes.b, nodes.a.api, nodes.b].map((api) => api.post(`poll/poll/${pollid}/response`, v))));
    expect(results.filter((r) => r.status === 200)).toHaveLength(300);
    expect(results.filter((r) => r.status === 409)).toHaveLength(900);
    for (const api of [nodes.a.api, nodes.b]) {
      const standings = (await api.get(`poll/poll/${pollid}/standings`)).body.data;
      expect(standings.totalresponses).toBe(300);
      expect(standings.choices.map((c: { count: number }) => c.count)).toEqual([150, 150]);
    }
  }, 60_000);
});
