/** Attempts per delivery before it is given up (the last one 14 to 27 minutes after the first). */
export const MAX_ATTEMPTS = 12;
const BASE_MS = 1000;
const CAP_MS = 10 * 60_000;

/** Exponential backoff with jitter: after attempt n, wait between half and all of min(cap, 1 s * 2^(n-1)). */
export function retryDelayMs(attempt: number, random = Math.random()): number {
  const ceiling = Math.min(CAP_MS, BASE_MS * 2 ** Math.max(0, attempt - 1));
  return Math.round(ceiling * (0.5 + random * 0.5));
}
