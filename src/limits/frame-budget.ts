import type { Rate } from './config.js';

/** What to do with a socket's frame. */
export type FrameVerdict = 'handle' | 'refuse' | 'drop' | 'close';

/**
 * Frames per socket in a fixed window. A plain counter on the socket rather than a keyed
 * limiter: a socket lives on one node, and the check runs synchronously on every frame. Past
 * the budget the first frame is refused (the caller sends `rate_limited`), later ones are
 * dropped, and a socket that sends another full budget's worth in the same window is closed.
 */
export class FrameBudget {
  private windowEnds = 0;
  private used = 0;

  constructor(readonly rate: Rate) {}

  take(now: number): FrameVerdict {
    if (now >= this.windowEnds) {
      this.windowEnds = now + this.rate.seconds * 1000;
      this.used = 0;
    }
    this.used += 1;
    if (this.used <= this.rate.points) return 'handle';
    if (this.used === this.rate.points + 1) return 'refuse';
    return this.used > 2 * this.rate.points ? 'close' : 'drop';
  }

  /** Seconds until the window ends. */
  retryAfter(now: number): number {
    return Math.max(1, Math.ceil((this.windowEnds - now) / 1000));
  }
}
