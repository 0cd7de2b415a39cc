import type { RedisClient } from '../redis.js';
import { RateLimiterMemory, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Actor } from '../apps/types.js';
import type { RequestContext } from '../http/route.js';
import type { Logger } from '../logger.js';
import { WRITE_LIMITS, type Rate, type WriteLimit } from './config.js';
import { RateLimited } from './rate-limited.js';
import { sharedLimiter } from './store.js';

const REFUSALS: Record<WriteLimit, string> = {
  chat: 'Too many chat messages, reactions, replies and quotes by this user in this room.',
  comments: 'Too many comments by this user.',
  votes: 'Too many votes and reactions by this user.',
  reports: 'Too many reports by this user.',
  rooms: 'Too many rooms and conversations created or changed by this user.',
  users: 'Too many changes to users by this user.',
  joins: 'Too many joins, exits and session touches by this user.',
  telemetry: 'Too many telemetry writes by this user.',
  polls: 'Too many poll changes by this user.',
  notifications: 'Too many notification changes by this user.',
  moderation: 'Too many moderation and administration actions by this user.',
  searches: "Too many searches by this user (or, without a user token, by this application's client token).",
};

/**
 * One per-user budget, local first: this node's memory decides each request (no Redis round
 * trip on the posting path); with Redis, every use is also counted cluster-wide in the
 * background, and a key Redis finds over its budget is blocked here for the rest of its window.
 * A user spreading writes over N nodes thus gets at most about N writes beyond the budget.
 */
class Budget {
  private readonly local: RateLimiterMemory;
  private readonly shared: RateLimiterAbstract | undefined;

  constructor(
    private readonly kind: WriteLimit,
    private readonly rate: Rate,
    redis: RedisClient | undefined,
    private readonly log: Logger,
  ) {
    this.local = new RateLimiterMemory({ keyPrefix: kind, points: rate.points, duration: rate.seconds });
    this.shared = redis === undefined ? undefined : sharedLimiter(redis, kind, rate);
  }

  async take(key: string): Promise<void> {
    try {
      await this.local.consume(key);
    } catch (refused) {
      if (refused instanceof RateLimiterRes) throw new RateLimited(REFUSALS[this.kind], this.rate, refused.msBeforeNext);
      throw refused;
    }
    this.shared?.consume(key).catch((refused: unknown) => this.learn(key, refused));
  }

  private learn(key: string, refused: unknown): void {
    if (refused instanceof RateLimiterRes) {
      this.local.block(key, Math.max(1, Math.ceil(refused.msBeforeNext / 1000))).catch(() => undefined);
    } else {
      this.log.warn({ err: refused, limit: this.kind }, 'shared rate limit count failed');
    }
  }
}

/**
 * Who a write counts against: a plain user's token's own user, else the userid the request
 * names, else the user token's (moderator's, admin's) user; moderation always counts against
 * the moderator, whoever it acts on. A client token writes only with a user token, so each of
 * its writes is counted; a server token naming no user is the deployment's own backend and is not.
 */
function writer(kind: WriteLimit, ctx: RequestContext): string | undefined {
  if (kind === 'searches') return searcher(ctx);
  if (writerKnownWithoutBody(kind, ctx.actor)) return ctx.actor?.userid;
  const named = ((ctx.body ?? ctx.query) as { userid?: unknown } | undefined)?.userid;
  if (typeof named === 'string') return named;
  return ctx.actor?.userid;
}

/**
 * Who a search counts against: the user token's user, whatever it names in the body (user/search's
 * `userid` is a search term); a client token without one, the application's anonymous readers
 * together (one client token cannot occupy the database); a server token without one, nobody.
 */
function searcher(ctx: RequestContext): string | undefined {
  if (ctx.actor !== null) return ctx.actor.userid;
  return ctx.scope === 'client' ? ANONYMOUS_SEARCHER : undefined;
}

/** Not a userid: userids are non-empty text, and this one is a control character. */
const ANONYMOUS_SEARCHER = '\u0001client-token';

/** Whether the user a write counts against follows from the credentials alone, before the body is read. */
export function writerKnownWithoutBody(kind: WriteLimit, actor: Actor | null): boolean {
  return kind === 'searches' || (actor !== null && (actor.role === 'user' || kind === 'moderation'));
}

/** Writes per user and application; chat per user and room. */
export class WriteLimits {
  private readonly budgets: Record<WriteLimit, Budget>;

  constructor(rates: Record<WriteLimit, Rate>, redis: RedisClient | undefined, log: Logger) {
    this.budgets = Object.fromEntries(WRITE_LIMITS.map((kind) => [kind, new Budget(kind, rates[kind], redis, log)])) as Record<WriteLimit, Budget>;
  }

  /** Throws RateLimited (429) when the request's user has used up the budget. */
  async take(kind: WriteLimit, ctx: RequestContext): Promise<void> {
    const userid = writer(kind, ctx);
    if (userid === undefined) return;
    const key = kind === 'chat' ? `${ctx.app.id}\u0000${ctx.params['roomid']}\u0000${userid}` : `${ctx.app.id}\u0000${userid}`;
    await this.budgets[kind].take(key);
  }
}
