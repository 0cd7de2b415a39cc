import { Cluster, Redis, type RedisOptions } from 'ioredis';

/** `classic`: SUBSCRIBE/PUBLISH; `sharded`: SSUBSCRIBE/SPUBLISH (Redis 7), each channel on the shard of its slot. */
export type PubSubMode = 'classic' | 'sharded';

export interface RedisConfig {
  url: string;
  /** REDIS_CLUSTER=on: `url` is one node of a Redis Cluster; the client learns the others from it. */
  cluster: boolean;
  pubsub: PubSubMode;
}

/** A client of one Redis server, or of a whole Redis Cluster (commands are routed by key slot). */
export type RedisClient = Redis | Cluster;

export interface ClientOptions extends Pick<RedisOptions, 'enableOfflineQueue' | 'maxRetriesPerRequest' | 'autoResubscribe'> {
  /** On a cluster: SSUBSCRIBE on a connection to each shard's master (else one connection serves every subscription). */
  shardedSubscribers?: boolean;
}

/** Reconnects soon after a loss, then every 2 s at most. */
const retryDelay = (attempt: number) => Math.min(attempt * 200, 2000);

/** A new client of the configured Redis; one lost reconnects by itself. */
export function redisClient(config: RedisConfig, { shardedSubscribers, ...options }: ClientOptions): RedisClient {
  if (!config.cluster) return new Redis(config.url, { ...options, retryStrategy: retryDelay });
  const seed = new URL(config.url);
  const credentials = {
    username: seed.username === '' ? undefined : decodeURIComponent(seed.username),
    password: seed.password === '' ? undefined : decodeURIComponent(seed.password),
    tls: seed.protocol === 'rediss:' ? {} : undefined,
  };
  return new Cluster([{ host: seed.hostname, port: Number(seed.port || 6379) }], {
    redisOptions: { ...options, ...credentials },
    enableOfflineQueue: options.enableOfflineQueue ?? true,
    clusterRetryStrategy: retryDelay,
    shardedSubscribers: shardedSubscribers === true,
  });
}
