import { describe, expect, it } from 'vitest';
import { SharedAnswers } from '../../src/shared-answers.js';

/** Reads answered by hand, in the order a test chooses. */
function harness(maxBytes = 1000) {
  const answers = new SharedAnswers<string>({ name: 'test', maxBytes, sizeOf: (v) => v.length });
  const reads: { key: string; resolve: (v: string) => void; reject: (e: unknown) => void }[] = [];
  const take = (key: string, version: string, since?: number) =>
    answers.take(key, since === undefined ? { version } : { version, since }, () => new Promise<string>((resolve, reject) => reads.push({ key, resolve, reject })));
  return { answers, reads, take };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('SharedAnswers', () => {
  it('shares one read among callers asking for the same version, and reads again for a new one', async () => {
    const { reads, take } = harness();
    const a = take('room', 'v1');
    const b = take('room', 'v1');
    expect(reads).toHaveLength(1);
    reads[0]?.resolve('page 1');
    expect(await a).toBe('page 1');
    expect(await b).toBe('page 1');
    expect(await take('room', 'v1')).toBe('page 1');
    expect(reads).toHaveLength(1);
    const c = take('room', 'v2');
    expect(reads).toHaveLength(2);
    reads[1]?.resolve('page 2');
    expect(await c).toBe('page 2');
  });

  it('gives callers whose request began after a running read started the one read queued behind it', async () => {
    const { reads, take } = harness();
    const early = take('head', '', performance.now());
    await new Promise((r) => setTimeout(r, 2));
    const late = Array.from({ length: 50 }, () => take('head', '', performance.now()));
    expect(reads).toHaveLength(1);
    reads[0]?.resolve('old head');
    expect(await early).toBe('old head');
    await tick();
    expect(reads).toHaveLength(2);
    reads[1]?.resolve('new head');
    expect(await Promise.all(late)).toEqual(Array.from({ length: 50 }, () => 'new head'));
    // Held now, and read after each of them began: shared without a read.
    expect(await take('head', '', 0)).toBe('new head');
    expect(reads).toHaveLength(2);
  });

  it('does not keep a failed read, and evicts the least recently used past its bytes', async () => {
    const { answers, reads, take } = harness(10);
    const failed = take('a', 'v');
    reads[0]?.reject(new Error('down'));
    await expect(failed).rejects.toThrow('down');
    const again = take('a', 'v');
    expect(reads).toHaveLength(2);
    reads[1]?.resolve('aaaa');
    await again;
    const b = take('b', 'v');
    reads[2]?.resolve('bbbb');
    await b;
    await take('a', 'v');
    const c = take('c', 'v');
    reads[3]?.resolve('cccc');
    await c;
    expect(answers.heldBytes).toBe(8);
    // b was the least recently used: it is read again, a is not.
    void take('b', 'v');
    expect(reads).toHaveLength(5);
    void take('a', 'v');
    expect(reads).toHaveLength(5);
  });
});
