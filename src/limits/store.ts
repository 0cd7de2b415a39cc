import { RateLimiterMemory, RateLimiterRedis, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Logger } from '../logger.js';
import { redisClient, type RedisClient, type RedisConfig } from '../redis.js';
import type { Rate } from './config.js';

/** The Redis connection the limits share, set up like the bus's: no offline queue, quick reconnects. */
export function limitsRedis(config: RedisConfig, log: Logger): RedisClient {
  const redis = redisClient(config, { enableOfflineQueue: false, maxRetriesPerRequest: 1 });
  redis.on('error', (err: Error) => log.warn({ err: err.message }, 'rate limit redis connection error'));
  redis.on('ready', () => log.info('rate limit redis connected'));
  return redis;
}

/**
 * A counter every node shares through Redis; while Redis is away (or before it connects) the
 * library's insurance limiter counts in this node's memory instead, so requests never fail
 * for want of Redis. Without Redis: memory only. The keys name the rate too: nodes configured
 * alike share counts, a node configured otherwise keeps its own.
 */
export function sharedLimiter(redis: RedisClient | undefined, name: string, rate: Rate, blockSeconds = 0): RateLimiterAbstract {
  const options = { keyPrefix: `engage:rl:${name}:${rate.points}/${rate.seconds}/${blockSeconds}`, points: rate.points, duration: rate.seconds, blockDuration: blockSeconds };
  if (redis === undefined) return new RateLimiterMemory(options);
  return new RateLimiterRedis({ ...options, storeClient: redis, rejectIfRedisNotReady: true, insuranceLimiter: new RateLimiterMemory(options) });
}
