import { nextTurn } from '../next-turn.js';

const GATHER_TURNS = 3;

/**
 * Before a batched write takes its batch: the clients answered by the last write send their next
 * request about now, so while `queue` holds fewer than the last write took, up to a few
 * event-loop turns' wait lets them join this one. A lone client (last batch 1) never waits.
 */
export async function gatherWaiting(queue: readonly unknown[], lastBatch: number): Promise<void> {
  for (let turn = 0; turn < GATHER_TURNS && queue.length < lastBatch; turn++) await nextTurn();
}
