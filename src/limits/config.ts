import * as v from 'valibot';

/** At most `points` in any window of `seconds` that starts at a key's first use. */
export interface Rate {
  points: number;
  seconds: number;
}

/**
 * The per-user budgets; each route that writes names the one it draws on, and so do the searches
 * (`searches`: the one read budget, for the reads that cost the database most).
 */
export type WriteLimit = 'chat' | 'comments' | 'votes' | 'reports' | 'rooms' | 'users' | 'joins' | 'telemetry' | 'polls' | 'notifications' | 'moderation' | 'searches';

export const WRITE_LIMITS: readonly WriteLimit[] = ['chat', 'comments', 'votes', 'reports', 'rooms', 'users', 'joins', 'telemetry', 'polls', 'notifications', 'moderation', 'searches'];

/** Long-lived connections (WebSockets, event streams) per process (README, Connections). */
export interface ConnectionLimitConfig {
  /** WS_MAX_CONNECTIONS; unset: as many as the file-descriptor limit allows, less a reserve. */
  max: number | undefined;
  perAddress: number;
}

export interface RateLimitConfig {
  enabled: boolean;
  /** Proxies in front of the server whose X-Forwarded-For entries are believed (0: none). */
  trustProxy: number;
  authFailures: Rate;
  authLockoutSeconds: number;
  writes: Record<WriteLimit, Rate>;
  wsFrames: Rate;
  /** On whatever RATE_LIMITS says: they bound what the process holds, not how fast. */
  connections: ConnectionLimitConfig;
}

const UNIT_SECONDS = { s: 1, m: 60, h: 3600 } as const;
const RATE = /^(\d+)\/(\d+)([smh])$/;

/** `30/10s`: 30 in a window of 10 seconds (units s, m, h). */
const rate = v.pipe(
  v.string(),
  v.regex(RATE, 'must be a rate like 30/10s, 20/1m or 100/1h'),
  v.transform((s): Rate => {
    const [, points, amount, unit] = RATE.exec(s) as RegExpExecArray;
    return { points: Number(points), seconds: Number(amount) * UNIT_SECONDS[unit as keyof typeof UNIT_SECONDS] };
  }),
  v.check((r) => r.points >= 1 && r.seconds >= 1, 'must allow at least 1 in a window of at least 1s'),
);
const seconds = v.pipe(
  v.string(),
  v.regex(/^\d+[smh]$/, 'must be a duration like 30s, 5m or 1h'),
  v.transform((s) => Number.parseInt(s, 10) * UNIT_SECONDS[s.at(-1) as keyof typeof UNIT_SECONDS]),
  v.minValue(1, 'must be at least 1s'),
);

const count = v.pipe(v.string(), v.regex(/^\d+$/, 'must be a whole number'), v.transform(Number), v.minValue(1, 'must be at least 1'));

/** The environment variables of the rate limits, with their defaults (README, Configuration). */
export const RATE_LIMIT_ENV = {
  RATE_LIMITS: v.optional(v.picklist(['on', 'off'], 'must be on or off'), 'on'),
  TRUST_PROXY: v.optional(v.pipe(v.string(), v.regex(/^\d+$/, 'must be a whole number'), v.transform(Number)), '0'),
  RATE_LIMIT_AUTH_FAILURES: v.optional(rate, '30/1m'),
  RATE_LIMIT_AUTH_LOCKOUT: v.optional(seconds, '5m'),
  RATE_LIMIT_CHAT: v.optional(rate, '30/10s'),
  RATE_LIMIT_COMMENTS: v.optional(rate, '20/1m'),
  RATE_LIMIT_VOTES: v.optional(rate, '120/1m'),
  RATE_LIMIT_REPORTS: v.optional(rate, '20/1m'),
  RATE_LIMIT_ROOMS: v.optional(rate, '30/1m'),
  RATE_LIMIT_USERS: v.optional(rate, '30/1m'),
  RATE_LIMIT_JOINS: v.optional(rate, '60/1m'),
  RATE_LIMIT_TELEMETRY: v.optional(rate, '60/10s'),
  RATE_LIMIT_POLLS: v.optional(rate, '60/1m'),
  RATE_LIMIT_NOTIFICATIONS: v.optional(rate, '60/1m'),
  RATE_LIMIT_MODERATION: v.optional(rate, '300/1m'),
  RATE_LIMIT_SEARCHES: v.optional(rate, '30/10s'),
  RATE_LIMIT_WS_FRAMES: v.optional(rate, '300/10s'),
  WS_MAX_CONNECTIONS: v.optional(count),
  WS_MAX_CONNECTIONS_PER_ADDRESS: v.optional(count, '5000'),
};

type Env = v.InferOutput<v.ObjectSchema<typeof RATE_LIMIT_ENV, undefined>>;

export function rateLimitConfig(e: Env): RateLimitConfig {
  return {
    enabled: e.RATE_LIMITS === 'on',
    trustProxy: e.TRUST_PROXY,
    authFailures: e.RATE_LIMIT_AUTH_FAILURES,
    authLockoutSeconds: e.RATE_LIMIT_AUTH_LOCKOUT,
    writes: {
      chat: e.RATE_LIMIT_CHAT,
      comments: e.RATE_LIMIT_COMMENTS,
      votes: e.RATE_LIMIT_VOTES,
      reports: e.RATE_LIMIT_REPORTS,
      rooms: e.RATE_LIMIT_ROOMS,
      users: e.RATE_LIMIT_USERS,
      joins: e.RATE_LIMIT_JOINS,
      telemetry: e.RATE_LIMIT_TELEMETRY,
      polls: e.RATE_LIMIT_POLLS,
      notifications: e.RATE_LIMIT_NOTIFICATIONS,
      moderation: e.RATE_LIMIT_MODERATION,
      searches: e.RATE_LIMIT_SEARCHES,
    },
    wsFrames: e.RATE_LIMIT_WS_FRAMES,
    connections: { max: e.WS_MAX_CONNECTIONS, perAddress: e.WS_MAX_CONNECTIONS_PER_ADDRESS },
  };
}
