import { describe, expect, it } from 'vitest';
import { RoomOrder } from '../../client/src/room-order.js';
import type { EventMeta } from '../../client/src/types.js';

const meta = (seq: number): EventMeta => ({ topic: 'room:r', event: 'chat.event', seq, cursor: `c${seq}` });

/** engage-client's ordering of one room: holes the server names pass at once, others are never guessed over. */
describe('RoomOrder', () => {
  it('hands over an event past a hole its prev accounts for at once, and reads the room when a hole stays open', async () => {
    const out: number[] = [];
    let stalls = 0;
    const order = new RoomOrder(
      (_data, m) => out.push(m.seq as number),
      50,
      () => stalls++,
    );
    order.reset('c1', 1);
    order.push({}, meta(2), 1);
    // Seq 3 is an event this client may not see: 4 names 2 as the one before it.
    order.push({}, meta(4), 2);
    expect(out).toEqual([2, 4]);
    // Seq 5 never comes: 6 (prev 5) waits, then the client is told to read the room from its cursor.
    order.push({}, meta(6), 5);
    await new Promise((r) => setTimeout(r, 120));
    expect(out).toEqual([2, 4]);
    expect(stalls).toBe(1);
    expect(order.cursor).toBe('c4');
    // Out of order but whole: put back in order without waiting.
    order.reset('c4', 4);
    order.push({}, meta(6), 5);
    order.push({}, meta(5), 4);
    expect(out).toEqual([2, 4, 5, 6]);
    expect(stalls).toBe(1);
  });
});
