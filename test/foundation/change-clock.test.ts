import { describe, expect, it } from 'vitest';
import { ChangeClock } from '../../src/change-clock.js';

describe('ChangeClock.versionOf', () => {
  it('moves with each change to its key only, and for every key that changed before a start-over', () => {
    const clock = new ChangeClock(2);
    const [a0, b0] = [clock.versionOf('a'), clock.versionOf('b')];
    clock.changed('a');
    const a1 = clock.versionOf('a');
    expect(a1).not.toBe(a0);
    expect(clock.versionOf('b')).toBe(b0);
    clock.changed('b');
    const b1 = clock.versionOf('b');
    expect(b1).not.toBe(b0);
    expect(clock.versionOf('a')).toBe(a1);
    // A third key is past what it remembers: it starts over, and a version it gave for `a` (not the last change) is not given again.
    clock.changed('c');
    expect(clock.versionOf('a')).not.toBe(a1);
    expect(clock.versionOf('c')).not.toBe(clock.versionOf('a'));
    const c1 = clock.versionOf('c');
    clock.changed('c');
    expect(clock.versionOf('c')).not.toBe(c1);
  });
});
