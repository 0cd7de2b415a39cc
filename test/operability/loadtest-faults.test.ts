import { describe, expect, it } from 'vitest';
import { deliveryFaults, pollFaults } from '../../bench/loadtest/faults.js';

/** The load tester's accounting: each failure is counted where it happened, none cancels another. */
describe('load tester fault accounting', () => {
  it('reports a repeat on one socket and a miss on another, both', () => {
    const expected = ['e1', 'e2', 'e3'];
    const repeating = new Map([
      ['e1', 1],
      ['e2', 2],
      ['e3', 1],
    ]);
    const missing = new Map([
      ['e1', 1],
      ['e3', 1],
    ]);
    const whole = new Map(expected.map((id) => [id, 1]));
    // Summed over the events, as the tester once counted, the repeat of e2 would cancel its miss.
    expect(deliveryFaults(expected, [repeating, missing, whole])).toEqual({ misses: 1, repeats: 1, socketsMissing: 1, socketsRepeating: 1 });
    expect(deliveryFaults(expected, [whole, whole])).toEqual({ misses: 0, repeats: 0, socketsMissing: 0, socketsRepeating: 0 });
  });

  it('checks what polled pages held against the posts acknowledged before each last poll', () => {
    const posts = new Map([
      ['before-first-page', { sent: 5, answered: 8 }],
      ['covered', { sent: 20, answered: 25 }],
      ['after-last-poll', { sent: 40, answered: 60 }],
    ]);
    const pollers = [
      { seen: new Map([['covered', 1]]), firstAnswered: 10, lastSent: 50 },
      { seen: new Map([['other', 2]]), firstAnswered: 10, lastSent: 50 },
    ];
    expect(pollFaults(posts, pollers)).toEqual({ misses: 1, repeats: 1 });
  });
});
