import type { Actor } from '../apps/types.js';
import type { RequestContext } from '../http/route.js';
import type { Logger } from '../logger.js';
import type { RedisClient, RedisConfig } from '../redis.js';
import { AuthFailures } from './auth-failures.js';
import { clientAddress } from './client-address.js';
import { connectionCaps } from './connection-caps.js';
import { ConnectionAdmission } from './connections.js';
import type { RateLimitConfig, WriteLimit } from './config.js';
import { FrameBudget } from './frame-budget.js';
import type { RateLimited } from './rate-limited.js';
import { limitsRedis } from './store.js';
import { WriteLimits, writerKnownWithoutBody } from './writes.js';

/**
 * Every rate limit of the server (README, Rate limits). With RATE_LIMITS=off each check
 * passes at once. With REDIS_URL the counts are shared by every node.
 */
export class Limits {
  readonly enabled: boolean;
  /** Admission of long-lived connections; on whatever RATE_LIMITS says. */
  readonly connections: ConnectionAdmission;
  private readonly redis: RedisClient | undefined;
  private readonly auth: AuthFailures | undefined;
  private readonly writes: WriteLimits | undefined;

  constructor(
    private readonly config: RateLimitConfig,
    redisConfig: RedisConfig | undefined,
    log: Logger,
  ) {
    this.enabled = config.enabled;
    this.connections = new ConnectionAdmission(connectionCaps(config.connections, log));
    if (!config.enabled) return;
    this.redis = redisConfig === undefined ? undefined : limitsRedis(redisConfig, log);
    this.auth = new AuthFailures(config.authFailures, config.authLockoutSeconds, this.redis, log);
    this.writes = new WriteLimits(config.writes, this.redis, log);
  }

  /** The client's address from the socket's peer and, behind TRUST_PROXY proxies, X-Forwarded-For. */
  address(peer: string, forwardedFor: string): string {
    return clientAddress(peer, forwardedFor, this.config.trustProxy);
  }

  /** The 429 to answer while the address is locked out after failed authentication. */
  lockout(address: () => string): RateLimited | undefined {
    return this.auth?.lockout(address);
  }

  /** Counts a failed authentication; returns the 429 to answer instead when it started a lockout. */
  async authFailed(address: string): Promise<RateLimited | undefined> {
    return this.auth === undefined ? undefined : this.auth.failed(address);
  }

  /** Whether a write's budget can be taken before its body is parsed (see WriteLimits). */
  writerKnownWithoutBody(kind: WriteLimit, actor: Actor | null): boolean {
    return this.writes !== undefined && writerKnownWithoutBody(kind, actor);
  }

  /** Throws 429 when the request's user has used up the route's write budget. */
  write(kind: WriteLimit, ctx: RequestContext): Promise<void> | undefined {
    return this.writes?.take(kind, ctx);
  }

  /** A new socket's frame budget; undefined when limits are off. */
  frameBudget(): FrameBudget | undefined {
    return this.enabled ? new FrameBudget(this.config.wsFrames) : undefined;
  }

  async close(): Promise<void> {
    await this.redis?.quit().catch(() => undefined);
  }
}
