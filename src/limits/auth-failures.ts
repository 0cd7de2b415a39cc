import type { RedisClient } from '../redis.js';
import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Logger } from '../logger.js';
import type { Rate } from './config.js';
import { RateLimited } from './rate-limited.js';
import { sharedLimiter } from './store.js';

const LOCKED_OUT = 'Too many failed authentication attempts from this address.';
/** Expired lockouts are swept when this many addresses are held. */
const SWEEP_AT = 10_000;

/**
 * Failed authentication (manage token, API token, user token) per client address. Past the
 * allowed failures the address is locked out: every request from it that carries credentials
 * is refused with 429, valid or not, so a guess's correctness is never revealed during the
 * lockout. Failures are counted cluster-wide (Redis); each node keeps the lockouts it has
 * learned in memory, so the check on every request costs one Map lookup, and only when some
 * address is locked out.
 */
export class AuthFailures {
  private readonly failures: RateLimiterAbstract;
  private readonly lockedUntil = new Map<string, number>();

  constructor(
    private readonly rate: Rate,
    lockoutSeconds: number,
    redis: RedisClient | undefined,
    private readonly log: Logger,
  ) {
    this.failures = sharedLimiter(redis, 'authfail', rate, lockoutSeconds);
  }

  /** The 429 to answer while the address is locked out. `address` is only read when some address is. */
  lockout(address: () => string): RateLimited | undefined {
    if (this.lockedUntil.size === 0) return undefined;
    const key = address();
    const until = this.lockedUntil.get(key);
    if (until === undefined) return undefined;
    const left = until - Date.now();
    if (left > 0) return new RateLimited(LOCKED_OUT, this.rate, left);
    this.lockedUntil.delete(key);
    return undefined;
  }

  /** Counts a failure; the answer to give instead of the failure's own when it started a lockout. */
  async failed(address: string): Promise<RateLimited | undefined> {
    try {
      await this.failures.consume(address);
      return undefined;
    } catch (refused) {
      if (!(refused instanceof RateLimiterRes)) {
        this.log.warn({ err: refused }, 'counting a failed authentication failed');
        return undefined;
      }
      this.lock(address, refused.msBeforeNext);
      return new RateLimited(LOCKED_OUT, this.rate, refused.msBeforeNext);
    }
  }

  private lock(address: string, ms: number): void {
    if (this.lockedUntil.size >= SWEEP_AT) {
      const now = Date.now();
      for (const [key, until] of this.lockedUntil) if (until <= now) this.lockedUntil.delete(key);
    }
    if (!this.lockedUntil.has(address)) this.log.warn({ address, seconds: Math.ceil(ms / 1000) }, 'address locked out after failed authentication');
    this.lockedUntil.set(address, Date.now() + ms);
  }
}
