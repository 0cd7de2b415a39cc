import { describe, expect, it } from 'vitest';
import { CHANGES_REMEMBERED, SingleFlight } from '../../src/single-flight.js';

interface Deferred<T> {
  promise: Promise<T>;
  resolve: (value: T) => void;
  reject: (err: unknown) => void;
}

function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (err: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** A SingleFlight in front of a map, with each load answered by hand in the order a test chooses. */
function harness() {
  const flight = new SingleFlight<string>();
  const cache = new Map<string, string>();
  const loads: Deferred<string>[] = [];
  const get = (key: string): Promise<string> =>
    flight.run(
      key,
      () => {
        const load = deferred<string>();
        loads.push(load);
        return load.promise;
      },
      (value) => cache.set(key, value),
    );
  /** A caller of 'k', then `cut` (a change notice, a detach), then a second caller. */
  const aroundCut = (cut: () => void) => {
    const before = get('k');
    cut();
    return { before, after: get('k') };
  };
  return { flight, cache, loads, get, aroundCut };
}

describe('SingleFlight', () => {
  it('shares one load between concurrent callers and keeps its value', async () => {
    const { cache, loads, get } = harness();
    const first = get('k');
    const second = get('k');
    expect(loads).toHaveLength(1);
    loads[0]!.resolve('v1');
    expect(await Promise.all([first, second])).toEqual(['v1', 'v1']);
    expect(cache.get('k')).toBe('v1');
    void get('k');
    expect(loads).toHaveLength(2);
  });

  it('a load overtaken by a change does not fill the cache; its callers still get its value, later callers load again', async () => {
    const { flight, cache, loads, get, aroundCut } = harness();
    const { before, after } = aroundCut(() => flight.invalidate('k'));
    expect(loads).toHaveLength(2);

    loads[0]!.resolve('old');
    expect(await before).toBe('old');
    expect(cache.has('k')).toBe(false);

    // The old load settling must not drop the newer one: this caller joins it.
    const joined = get('k');
    expect(loads).toHaveLength(2);
    loads[1]!.resolve('new');
    expect(await Promise.all([after, joined])).toEqual(['new', 'new']);
    expect(cache.get('k')).toBe('new');
  });

  it('detach: later callers start a new load, and the detached one still fills the cache', async () => {
    const { flight, cache, loads, aroundCut } = harness();
    const { before, after } = aroundCut(() => flight.detach('k'));
    expect(loads).toHaveLength(2);
    loads[0]!.resolve('first');
    expect(await before).toBe('first');
    expect(cache.get('k')).toBe('first');
    loads[1]!.resolve('second');
    expect(await after).toBe('second');
    expect(cache.get('k')).toBe('second');
  });

  it('keeps the value when the change came before the load started or was of another key', async () => {
    const { flight, cache, loads, get } = harness();
    flight.invalidate('a');
    const a = get('a');
    const b = get('b');
    flight.invalidate('other');
    loads[0]!.resolve('va');
    loads[1]!.resolve('vb');
    await Promise.all([a, b]);
    expect(cache.get('a')).toBe('va');
    expect(cache.get('b')).toBe('vb');
  });

  it('a failed load reaches every caller, keeps nothing, and the next call loads again', async () => {
    const { cache, loads, get } = harness();
    const first = get('k');
    const second = get('k');
    loads[0]!.reject(new Error('db down'));
    await expect(first).rejects.toThrow('db down');
    await expect(second).rejects.toThrow('db down');
    expect(cache.has('k')).toBe(false);
    const retry = get('k');
    expect(loads).toHaveLength(2);
    loads[1]!.resolve('v');
    expect(await retry).toBe('v');
  });

  it('stamp and unchangedSince guard fills that bypass run (one query for many keys)', () => {
    const flight = new SingleFlight<string>();
    const since = flight.stamp();
    flight.invalidate('a');
    expect(flight.unchangedSince('a', since)).toBe(false);
    expect(flight.unchangedSince('b', since)).toBe(true);
    expect(flight.unchangedSince('a', flight.stamp())).toBe(true);
  });

  it('after forgetting old changes, fills stamped before count as overtaken for every key', () => {
    const flight = new SingleFlight<string>();
    const old = flight.stamp();
    for (let i = 0; i <= CHANGES_REMEMBERED; i++) flight.invalidate(`k${i}`);
    const recent = flight.stamp();
    expect(flight.unchangedSince('never-changed', old)).toBe(false);
    expect(flight.unchangedSince('k0', old)).toBe(false);
    expect(flight.unchangedSince('never-changed', recent)).toBe(true);
    expect(flight.unchangedSince(`k${CHANGES_REMEMBERED}`, recent)).toBe(true);
  });
});
