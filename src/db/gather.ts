const GATHER_TURNS = 3;
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Before a group commit takes its batch: clients answered by the last batch send their next
 * request about now, so while fewer than half as many are waiting as the last batch held,
 * wait a few event-loop turns to let them join instead of trailing in tiny batches of their own.
 */
export async function gatherArrivals(waiting: () => number, lastBatch: number): Promise<void> {
  for (let turn = 0; turn < GATHER_TURNS && waiting() < lastBatch / 2; turn++) await nextTurn();
}
