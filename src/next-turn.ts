/**
 * Resolves after a turn of the event loop, so what arrived meanwhile (requests, their reads) goes
 * first. PGlite answers without giving the loop a turn: statements run back to back would hold
 * the serving thread for their sum.
 */
export const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
