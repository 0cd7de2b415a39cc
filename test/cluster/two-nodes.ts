import { startedForSuite } from '../helpers/for-suite.js';
import { Client, newApp, type TestApp } from '../helpers/api.js';
import { spawnServer, type SpawnedServer } from '../helpers/spawn.js';
import { testPostgres } from '../chat/postgres.js';
import { freshDatabase, RedisCluster, RedisProcess } from './infra.js';
import { SlowLink } from './slow-link.js';

export interface TwoNodes {
  /** The app, its client speaking to node A. */
  a: TestApp;
  /** The same app through node B. */
  b: Client;
  /** The Redis between them (when asked for): a test may stop and restart it. */
  redis: RedisProcess | undefined;
  /** The Redis Cluster between them instead (`redis: 'cluster'`): a test may stop and restart a master. */
  redisCluster: RedisCluster | undefined;
  /** The two server processes, A then B: a test may kill one. */
  servers: [SpawnedServer, SpawnedServer];
  stop(): Promise<void>;
}

export interface TwoNodeOptions {
  /** `cluster`: a Redis Cluster of three masters (REDIS_CLUSTER=on). */
  redis: boolean | 'cluster';
  /** More environment for both nodes (limits, say). */
  env?: Record<string, string>;
  /** Node B hears Redis this many milliseconds late (a SlowLink between them); needs `redis: true`. */
  slowLinkToB?: number;
}

/** Two server processes on a fresh database of one Postgres, with the Redis bus between them when asked. */
async function startTwoNodes(options: TwoNodeOptions): Promise<TwoNodes> {
  const pg = await testPostgres();
  const db = await freshDatabase(pg.url);
  const redis = options.redis === true ? await RedisProcess.start() : undefined;
  const redisCluster = options.redis === 'cluster' ? await RedisCluster.start(3) : undefined;
  const env = {
    ...options.env,
    DATABASE_URL: db.url,
    ...(redis === undefined ? {} : { REDIS_URL: redis.url }),
    ...(redisCluster === undefined ? {} : { REDIS_URL: redisCluster.url, REDIS_CLUSTER: 'on' }),
  };
  const slowLink = redis !== undefined && options.slowLinkToB !== undefined ? await SlowLink.start(redis.url, options.slowLinkToB) : undefined;
  const servers: [SpawnedServer, SpawnedServer] = [await spawnServer(env), await spawnServer(slowLink === undefined ? env : { ...env, REDIS_URL: slowLink.url })];
  const a = await newApp({}, servers[0].url);
  return {
    a,
    b: new Client(servers[1].url, a.appid, a.token),
    redis,
    redisCluster,
    servers,
    async stop() {
      for (const n of servers) await n.stop();
      await slowLink?.stop();
      await redis?.kill();
      await redisCluster?.kill();
      await db.drop();
      pg.stop();
    },
  };
}

/** Two nodes started before the suite's tests and stopped after them; read `a` and `b` inside tests. */
export function twoNodesForSuite(options: TwoNodeOptions): Pick<TwoNodes, 'a' | 'b' | 'redis' | 'redisCluster' | 'servers'> {
  const started = startedForSuite(
    () => startTwoNodes(options),
    (cluster) => cluster.stop(),
    120_000,
  );
  return {
    get a() {
      return started().a;
    },
    get b() {
      return started().b;
    },
    get redis() {
      return started().redis;
    },
    get redisCluster() {
      return started().redisCluster;
    },
    get servers() {
      return started().servers;
    },
  };
}
