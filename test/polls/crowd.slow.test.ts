import { beforeAll, describe, expect, it } from 'vitest';
import { newApp, type Client } from '../helpers/api.js';

/**
 * A crowd voting in one poll while others read its standings: every read is consistent (the
 * total is the sum of the choices, and never goes back), and the end count is exact.
 */
let api: Client;
beforeAll(async () => {
  ({ api } = await newApp());
});

describe('a crowd in one poll', () => {
  it('300 concurrent voters, standings read meanwhile: each read consistent and monotonic, the end exact', async () => {
    const poll = (await api.post('poll/poll/create', { title: 'Man of the match' })).body.data;
    const choices = (await api.post(`poll/poll/${poll.id}/choice`, { choices: [{ title: 'A' }, { title: 'B' }, { title: 'C' }] })).body.data.map((c: { id: string }) => c.id);
    let voting = true;
    // Each reader's reads in order: a read sent after another was answered must not go back. (Two
    // readers' answers, on two connections, may arrive in either order, so only each reader's own
    // sequence is ordered.)
    const sequences: { total: number; sum: number }[][] = [[], []];
    const reader = async (reads: { total: number; sum: number }[]) => {
      // At least three reads each, the last after the voting: 300 votes may be written in a few batches.
      while (voting || reads.length < 3) {
        const s = (await api.get(`poll/poll/${poll.id}/standings`)).body.data;
        reads.push({ total: s.totalresponses, sum: s.choices.reduce((n: number, c: { count: number }) => n + c.count, 0) });
      }
    };
    const readers = Promise.all(sequences.map(reader));
    const answers = await Promise.all(Array.from({ length: 300 }, (_, i) => api.post(`poll/poll/${poll.id}/response`, { userid: `crowd${i}`, choiceid: choices[i % 3] })));
    voting = false;
    await readers;
    expect(answers.every((r) => r.status === 200)).toBe(true);
    expect(answers.every((r) => Object.keys(r.body.data).sort().join() === Object.keys(answers[0]?.body.data).sort().join())).toBe(true);
    for (const reads of sequences) {
      expect(reads.length).toBeGreaterThan(2);
      for (const r of reads) expect(r.total).toBe(r.sum);
      for (let i = 1; i < reads.length; i++) expect((reads[i] as { total: number }).total).toBeGreaterThanOrEqual((reads[i - 1] as { total: number }).total);
    }
    const end = (await api.get(`poll/poll/${poll.id}/standings`)).body.data;
    expect(end.totalresponses).toBe(300);
    expect(end.choices.map((c: { count: number }) => c.count)).toEqual([100, 100, 100]);
  });
});
