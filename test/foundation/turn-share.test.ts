import { describe, expect, it } from 'vitest';
import { TurnShare } from '../../src/realtime/turn-share.js';

/** Which turn of the event loop each piece of work ran in, counted by a ticker of the test's own. */
function turnCounter() {
  let turn = 0;
  let running = true;
  const tick = () => {
    turn++;
    if (running) setImmediate(tick);
  };
  setImmediate(tick);
  return { now: () => turn, stop: () => (running = false) };
}

describe('TurnShare', () => {
  it('runs at most a turn’s worth of work per turn, in the order asked, and lets other I/O in between', async () => {
    const share = new TurnShare(3);
    const turns = turnCounter();
    const ran: [string, number][] = [];
    const work = (name: string, cost: number) => share.take(cost).then(() => ran.push([name, turns.now()]));
    await Promise.all([work('a', 1), work('b', 1), work('c', 1), work('d', 1), work('e', 2), work('f', 1)]);
    turns.stop();
    expect(ran.map(([name]) => name)).toEqual(['a', 'b', 'c', 'd', 'e', 'f']);
    const turnOf = Object.fromEntries(ran);
    // a, b, c fill a turn; d and e (3 units) the next; f the one after.
    expect(turnOf['b']).toBe(turnOf['a']);
    expect(turnOf['c']).toBe(turnOf['a']);
    expect(turnOf['d']).toBeGreaterThan(turnOf['c'] as number);
    expect(turnOf['e']).toBe(turnOf['d']);
    expect(turnOf['f']).toBeGreaterThan(turnOf['e'] as number);
  });

  it('gives a piece larger than a turn a turn of its own', async () => {
    const share = new TurnShare(2);
    const turns = turnCounter();
    const ran: [string, number][] = [];
    await Promise.all([share.take(5).then(() => ran.push(['big', turns.now()])), share.take(1).then(() => ran.push(['small', turns.now()]))]);
    turns.stop();
    expect(ran.map(([name]) => name)).toEqual(['big', 'small']);
    expect((ran[1] as [string, number])[1]).toBeGreaterThan((ran[0] as [string, number])[1]);
  });
});
