import * as v from 'valibot';
import { RATE_LIMIT_ENV, rateLimitConfig, type RateLimitConfig } from './limits/config.js';
import type { SearchBounds } from './db/bounded-search.js';
import type { OpenOptions, Pooler } from './db/client.js';
import type { RedisConfig } from './redis.js';
import { TELEMETRY_LIMIT_ENV, telemetryLimits, type TelemetryLimits } from './telemetry/limits.js';

const port = v.pipe(v.string(), v.regex(/^\d+$/, 'must be a whole number'), v.transform(Number), v.minValue(0), v.maxValue(65535));
const positiveInt = v.pipe(v.string(), v.regex(/^\d+$/, 'must be a whole number'), v.transform(Number), v.minValue(1));
const wholeNumber = v.pipe(v.string(), v.regex(/^\d+$/, 'must be a whole number'), v.transform(Number));
const url = (schemes: string[]) =>
  v.pipe(
    v.string(),
    v.check(
      (s) => {
        try {
          return schemes.includes(new URL(s).protocol);
        } catch {
          return false;
        }
      },
      `must be a URL starting with ${schemes.join(' or ')}//`,
    ),
  );
const byteSize = v.pipe(
  v.string(),
  v.regex(/^\d+(kb|mb|b)?$/i, 'must be a size like 1048576, 512kb or 1mb'),
  v.transform((s) => {
    const n = Number.parseInt(s, 10);
    const unit = s.toLowerCase().replace(/^\d+/, '');
    return unit === 'mb' ? n * 1024 * 1024 : unit === 'kb' ? n * 1024 : n;
  }),
  v.minValue(1024, 'must be at least 1kb'),
);

const onOff = v.pipe(
  v.picklist(['true', 'false', '1', '0'], 'must be true or false'),
  v.transform((s) => s === 'true' || s === '1'),
);
const origins = v.pipe(
  v.string(),
  v.transform((s) =>
    s
      .split(',')
      .map((o) => o.trim())
      .filter((o) => o !== ''),
  ),
  v.check((list) => (list.length === 1 && list[0] === '*' ? true : list.length > 0 && list.every(isOrigin)), 'must be * or a comma-separated list of origins like https://example.com'),
);

function isOrigin(s: string): boolean {
  try {
    return new URL(s).origin === s;
  } catch {
    return false;
  }
}

const SECONDS_PER = { s: 1, m: 60, h: 3600, d: 86_400 } as const;
const duration = v.pipe(
  v.string(),
  v.regex(/^\d+[smhd]?$/, 'must be a duration like 3600, 90m, 12h or 7d'),
  // A bare number ends in a digit, which is no unit: seconds.
  v.transform((s) => Number.parseInt(s, 10) * (SECONDS_PER[s.at(-1) as keyof typeof SECONDS_PER] ?? 1)),
);

const EnvSchema = v.object({
  PORT: v.optional(port, '3000'),
  HOST: v.optional(v.pipe(v.string(), v.minLength(1)), '0.0.0.0'),
  DATABASE_URL: v.optional(url(['postgres:', 'postgresql:'])),
  DATABASE_POOLER: v.optional(v.picklist(['none', 'transaction'], 'must be none or transaction'), 'none'),
  DATABASE_POOL_SIZE: v.optional(positiveInt, '16'),
  REDIS_URL: v.optional(url(['redis:', 'rediss:'])),
  REDIS_PUBSUB: v.optional(v.picklist(['classic', 'sharded']), 'classic'),
  REDIS_CLUSTER: v.optional(v.picklist(['on', 'off'], 'must be on or off'), 'off'),
  MANAGE_TOKEN: v.optional(v.pipe(v.string(), v.minLength(16, 'must be at least 16 characters'))),
  DATA_DIR: v.optional(v.pipe(v.string(), v.minLength(1)), './data'),
  STORAGE_RESERVE: v.optional(byteSize, '64mb'),
  LOG_LEVEL: v.optional(v.picklist(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']), 'info'),
  BODY_LIMIT: v.optional(byteSize, '1mb'),
  SESSION_IDLE_SECONDS: v.optional(positiveInt, '600'),
  PRESENCE_WINDOW_SECONDS: v.optional(positiveInt, '30'),
  PRESENCE_STORE: v.optional(v.picklist(['memory', 'redis'], 'must be memory or redis'), 'memory'),
  USER_REPORT_WINDOW_SECONDS: v.optional(positiveInt, '86400'),
  WS_MAX_SUBSCRIPTIONS: v.optional(positiveInt, '100'),
  WS_MAX_BACKPRESSURE: v.optional(byteSize, '1mb'),
  WS_COMPACT_WINDOW: v.optional(positiveInt, '500'),
  WS_COMPACT_SNAPSHOT: v.optional(wholeNumber, '64'),
  CATCH_UP_CACHE: v.optional(byteSize, '32mb'),
  CROWD_READS_CACHE: v.optional(byteSize, '16mb'),
  STORED_COMMENT_PAGE_MAX: v.optional(byteSize, '64kb'),
  EMBEDDED_SHARED_BUFFERS: v.optional(v.pipe(byteSize, v.minValue(1024 * 1024, 'must be at least 1mb'), v.maxValue(1024 * 1024 * 1024, 'must be at most 1024mb')), '32mb'),
  USER_CACHE_ENTRIES: v.optional(wholeNumber, '50000'),
  ROOM_CACHE_ENTRIES: v.optional(wholeNumber, '20000'),
  WS_IDLE_TIMEOUT_SECONDS: v.optional(v.pipe(positiveInt, v.minValue(8, 'must be at least 8 (uWebSockets.js refuses shorter idle timeouts)')), '120'),
  WEBHOOK_FAILURE_LIMIT: v.optional(positiveInt, '20'),
  WEBHOOK_LOG_RETENTION: v.optional(duration, '7d'),
  WEBHOOK_DENY_PRIVATE: v.optional(onOff, 'false'),
  WEBHOOK_MAX_HOOKS: v.optional(positiveInt, '50'),
  CORS_ORIGINS: v.optional(origins, '*'),
  REACTION_USERS_SHOWN: v.optional(v.pipe(positiveInt, v.maxValue(100)), '10'),
  REACTION_TYPES_MAX: v.optional(positiveInt, '50'),
  SEARCH_TIMEOUT_MS: v.optional(positiveInt, '2000'),
  SEARCH_MAX_CONCURRENT: v.optional(positiveInt, '4'),
  ...RATE_LIMIT_ENV,
  ...TELEMETRY_LIMIT_ENV,
  METRICS_TOKEN: v.optional(v.pipe(v.string(), v.minLength(16, 'must be at least 16 characters'))),
  BACKUP_DIR: v.optional(v.pipe(v.string(), v.minLength(1))),
  BACKUP_INTERVAL: v.optional(v.pipe(duration, v.minValue(1, 'must be at least 1 second')), '1d'),
  BACKUP_KEEP: v.optional(positiveInt, '7'),
  BACKUP_WORK_DIR: v.optional(v.pipe(v.string(), v.minLength(1))),
  SHUTDOWN_DRAIN_SECONDS: v.optional(wholeNumber, '5'),
  SHUTDOWN_TIMEOUT_SECONDS: v.optional(positiveInt, '25'),
});

export type Config = {
  port: number;
  host: string;
  databaseUrl: string | undefined;
  /** `transaction` behind a pooler in transaction mode (PgBouncer's pool_mode = transaction): no named statements. */
  databasePooler: Pooler;
  /** The most connections the server's requests hold to Postgres at once (the webhook thread has 4 more). */
  databasePoolSize: number;
  /** Redis (REDIS_URL, REDIS_CLUSTER, REDIS_PUBSUB), when set: the bus, shared rate limits, presence. */
  redis: RedisConfig | undefined;
  manageToken: string | undefined;
  dataDir: string;
  /** Writes are refused while the embedded database's disk has less than this free; as much again is held in DATA_DIR to start on a full disk (docs/storage.md). */
  storageReserve: number;
  logLevel: string;
  bodyLimit: number;
  sessionIdleSeconds: number;
  presenceWindowSeconds: number;
  /** Where telemetry lives: each node's memory (kept in step through the bus), or Redis (needs REDIS_URL). */
  presenceStore: 'memory' | 'redis';
  /** Trailing window in which room-level user reports count toward the application's userReportsLimit. */
  userReportWindowSeconds: number;
  wsMaxSubscriptions: number;
  /** Compact frames (docs/realtime.md): frames an object stays referable after it was last carried, and the most objects a newcomer is given at once. */
  wsCompact: { window: number; snapshotObjects: number };
  wsMaxBackpressure: number;
  /** Bytes of shared catch-up blocks (the feed read once for a crowd resuming) a node holds. */
  catchUpCacheBytes: number;
  /** Bytes each cache of shared crowd reads (first pages of updates, room details, rooms list pages) holds at most. */
  crowdReadsCacheBytes: number;
  /** Bytes of the largest first comment page kept in the database for the next reader (comment_page_renderings); 0 keeps none. */
  storedCommentPageMax: number;
  /** Bytes of the embedded database's shared buffers (its cache of table and index pages). */
  embeddedSharedBuffers: number;
  /** Users a node keeps in memory (0: every read from the database). */
  userCacheEntries: number;
  /** Rooms, and rooms' effects, a node keeps in memory (0: every read from the database). */
  roomCacheEntries: number;
  wsIdleTimeoutSeconds: number;
  webhookFailureLimit: number;
  /** Seconds a webhook delivery's log entries and message are kept; 0 keeps them for ever. */
  webhookLogRetentionSeconds: number;
  /** Refuse webhook URLs that resolve to loopback or private addresses, at save and at delivery. */
  webhookDenyPrivate: boolean;
  /** Webhooks one application may have. */
  webhookMaxHooks: number;
  /** Origins browsers may call from (`['*']`: any); also checked on WebSocket upgrades with a client token. */
  corsOrigins: string[];
  /** Users listed per reaction or vote type, in chat events and comments (the latest; counts stay exact): bounds every answer's size whatever the crowd. */
  reactionUsersShown: number;
  /** Distinct reaction types one comment or conversation may list. */
  reactionTypesMax: number;
  /** The searches' statement timeout and how many run at once per node (docs/limits.md, Searches). */
  searchBounds: SearchBounds;
  rateLimits: RateLimitConfig;
  telemetryLimits: TelemetryLimits;
  /** When set, GET /metrics needs `Authorization: Bearer <token>`. */
  metricsToken: string | undefined;
  /** Scheduled backups (BACKUP_DIR, BACKUP_INTERVAL, BACKUP_KEEP) and where an embedded database's copy is made while one runs (BACKUP_WORK_DIR: else BACKUP_DIR, else the system's temporary directory). */
  backups: { dir: string | undefined; intervalSeconds: number; keep: number; workDir: string | undefined };
  /** After SIGTERM: seconds the node keeps serving while /readyz says 503, so load balancers steer new requests away. */
  shutdownDrainSeconds: number;
  /** After SIGTERM: the longest the whole shutdown (drain included) may take before the process exits anyway. */
  shutdownTimeoutSeconds: number;
};

export class ConfigError extends Error {}

/** What opening the database takes from the configuration (the server, and the command-line tools on the same database). */
export function databaseSettings(c: Config): Pick<OpenOptions, 'databaseUrl' | 'pooler' | 'poolSize' | 'dataDir' | 'storageReserve' | 'sharedBuffers'> {
  return {
    databaseUrl: c.databaseUrl,
    pooler: c.databasePooler,
    poolSize: c.databasePoolSize,
    dataDir: c.dataDir,
    storageReserve: c.storageReserve,
    sharedBuffers: c.embeddedSharedBuffers,
  };
}

/** Reads the environment once; a bad value throws a ConfigError naming the variable. */
export function loadConfig(env: NodeJS.ProcessEnv): Config {
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''));
  const parsed = v.safeParse(EnvSchema, present);
  if (!parsed.success) {
    const problems = parsed.issues.map((issue) => `${v.getDotPath(issue) ?? 'environment'} ${issue.message}`);
    throw new ConfigError(`Invalid configuration: ${problems.join('; ')}`);
  }
  const e = parsed.output;
  if (e.PRESENCE_STORE === 'redis' && e.REDIS_URL === undefined) throw new ConfigError('Invalid configuration: PRESENCE_STORE redis needs REDIS_URL');
  if (e.REDIS_CLUSTER === 'on' && e.REDIS_URL === undefined) throw new ConfigError('Invalid configuration: REDIS_CLUSTER on needs REDIS_URL (a node of the cluster)');
  return {
    port: e.PORT,
    host: e.HOST,
    databaseUrl: e.DATABASE_URL,
    databasePooler: e.DATABASE_POOLER,
    databasePoolSize: e.DATABASE_POOL_SIZE,
    redis: e.REDIS_URL === undefined ? undefined : { url: e.REDIS_URL, cluster: e.REDIS_CLUSTER === 'on', pubsub: e.REDIS_PUBSUB },
    manageToken: e.MANAGE_TOKEN,
    dataDir: e.DATA_DIR,
    storageReserve: e.STORAGE_RESERVE,
    logLevel: e.LOG_LEVEL,
    bodyLimit: e.BODY_LIMIT,
    sessionIdleSeconds: e.SESSION_IDLE_SECONDS,
    presenceWindowSeconds: e.PRESENCE_WINDOW_SECONDS,
    presenceStore: e.PRESENCE_STORE,
    userReportWindowSeconds: e.USER_REPORT_WINDOW_SECONDS,
    wsMaxSubscriptions: e.WS_MAX_SUBSCRIPTIONS,
    wsCompact: { window: e.WS_COMPACT_WINDOW, snapshotObjects: e.WS_COMPACT_SNAPSHOT },
    wsMaxBackpressure: e.WS_MAX_BACKPRESSURE,
    catchUpCacheBytes: e.CATCH_UP_CACHE,
    crowdReadsCacheBytes: e.CROWD_READS_CACHE,
    storedCommentPageMax: e.STORED_COMMENT_PAGE_MAX,
    embeddedSharedBuffers: e.EMBEDDED_SHARED_BUFFERS,
    userCacheEntries: e.USER_CACHE_ENTRIES,
    roomCacheEntries: e.ROOM_CACHE_ENTRIES,
    wsIdleTimeoutSeconds: e.WS_IDLE_TIMEOUT_SECONDS,
    webhookFailureLimit: e.WEBHOOK_FAILURE_LIMIT,
    webhookLogRetentionSeconds: e.WEBHOOK_LOG_RETENTION,
    webhookDenyPrivate: e.WEBHOOK_DENY_PRIVATE,
    webhookMaxHooks: e.WEBHOOK_MAX_HOOKS,
    corsOrigins: e.CORS_ORIGINS,
    reactionUsersShown: e.REACTION_USERS_SHOWN,
    reactionTypesMax: e.REACTION_TYPES_MAX,
    searchBounds: { timeoutMs: e.SEARCH_TIMEOUT_MS, maxConcurrent: e.SEARCH_MAX_CONCURRENT },
    rateLimits: rateLimitConfig(e),
    telemetryLimits: telemetryLimits(e),
    metricsToken: e.METRICS_TOKEN,
    backups: { dir: e.BACKUP_DIR, intervalSeconds: e.BACKUP_INTERVAL, keep: e.BACKUP_KEEP, workDir: e.BACKUP_WORK_DIR },
    shutdownDrainSeconds: e.SHUTDOWN_DRAIN_SECONDS,
    shutdownTimeoutSeconds: e.SHUTDOWN_TIMEOUT_SECONDS,
  };
}
