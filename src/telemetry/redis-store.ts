import { unavailable } from '../errors.js';
import type { Logger } from '../logger.js';
import { redisClient, type RedisClient, type RedisConfig } from '../redis.js';
import { tooManyContexts, type TelemetryLimits } from './limits.js';
import type { ContextView, PresenceStore } from './presence-store.js';
import { ADMIT_CONTEXT, APPLY, VIEW } from './redis-scripts.js';
import { bySignal, figuresOf, type SignalKind, type SignalOp, type SignalView } from './signal.js';

const PREFIX = 'engage:telemetry:';
const INDEX = `${PREFIX}contexts`;
const COUNT_INTERVAL_MS = 5_000;
/** A context admitted this recently is not asked about again: a live context costs one check per interval, not per write. */
const ADMITTED_FOR_MS = 5_000;
/** Beyond this many remembered admissions the memory starts over. */
const MAX_ADMITTED = 10_000;

/** One signal as VIEW returns it: id, total, active users, the window hash flattened. */
type RawSignal = [id: string, total: string, active: number, window: string[]];

interface PresenceCommands {
  presenceApply(prefix: string, ...args: (string | number)[]): Promise<number[]>;
  presenceView(prefix: string, now: number, windowSeconds: number, only: string): Promise<[version: string, ...signals: RawSignal[]]>;
  presenceAdmit(index: string, now: number, idleMs: number, max: number, contextid: string): Promise<number>;
}

/** JSON of the parts: a context's key prefix and a signal's id cannot be confused with another's. */
const member = (appId: string, contextid: string) => JSON.stringify([appId, contextid]);
const signalId = (kind: SignalKind, key: string) => JSON.stringify([kind, key]);

/**
 * Every context in Redis, changed and read by scripts (redis-scripts.ts) whichever node serves
 * the request: every node, a node started late included, answers the same figures and cursor.
 */
export class RedisPresenceStore implements PresenceStore {
  private readonly redis: RedisClient & PresenceCommands;
  private contexts = 0;
  private readonly countTimer: NodeJS.Timeout;
  /** member(appId, contextid) → when Redis last admitted it (ms). */
  private readonly admitted = new Map<string, number>();

  constructor(
    config: RedisConfig,
    private readonly windowSeconds: number,
    private readonly limits: TelemetryLimits,
    private readonly log: Logger,
  ) {
    // Requests made while connecting wait for the connection; during an outage they fail after one retry.
    this.redis = redisClient(config, { maxRetriesPerRequest: 1 }) as RedisClient & PresenceCommands;
    this.redis.on('error', (err: Error) => log.warn({ err: err.message }, 'presence redis connection error'));
    this.redis.defineCommand('presenceApply', { numberOfKeys: 1, lua: APPLY });
    this.redis.defineCommand('presenceView', { numberOfKeys: 1, lua: VIEW });
    this.redis.defineCommand('presenceAdmit', { numberOfKeys: 1, lua: ADMIT_CONTEXT });
    this.countTimer = setInterval(
      () =>
        this.countContexts().catch((err: unknown) => {
          log.warn({ err }, 'presence redis: counting contexts failed');
        }),
      COUNT_INTERVAL_MS,
    );
    this.countTimer.unref();
  }

  async apply(appId: string, contextid: string, userid: string, ops: readonly SignalOp[], allOrNone: boolean): Promise<boolean[]> {
    if (ops.length === 0) return [];
    const now = Date.now();
    await this.admit(appId, contextid, now);
    const args: (string | number)[] = [now, this.windowSeconds, this.limits.keysPerContext, allOrNone ? 1 : 0, userid];
    for (const { kind, key, amount } of ops) args.push(signalId(kind, key), amount);
    const fits = (await this.call(() => this.redis.presenceApply(this.prefix(appId, contextid), ...args))).map((fit) => fit === 1);
    const applied = allOrNone ? fits.every(Boolean) : fits.some(Boolean);
    // The index has a slot of its own (a Redis Cluster refuses a script spanning two). It only feeds
    // contextCount(), read every few seconds: the request neither waits for it nor fails with it.
    if (applied) void this.redis.zadd(INDEX, now, member(appId, contextid)).catch((err: unknown) => this.log.warn({ err }, 'presence redis: indexing the context failed'));
    return fits;
  }

  async view(appId: string, contextid: string, now: number): Promise<ContextView> {
    const [version, ...raw] = await this.call(() => this.redis.presenceView(this.prefix(appId, contextid), now, this.windowSeconds, ''));
    return { version: Number(version), signals: raw.map((r) => this.figures(r, now)).sort(bySignal) };
  }

  async signal(appId: string, contextid: string, kind: SignalKind, key: string, now: number): Promise<SignalView | undefined> {
    const [, raw] = await this.call(() => this.redis.presenceView(this.prefix(appId, contextid), now, this.windowSeconds, signalId(kind, key)));
    return raw === undefined ? undefined : this.figures(raw, now);
  }

  contextCount(): number {
    return this.contexts;
  }

  async close(): Promise<void> {
    clearInterval(this.countTimer);
    await this.redis.quit().catch(() => undefined);
  }

  /**
   * Throws tooManyContexts for a new context while the application holds as many as it may.
   * Counted in Redis, across the cluster; nodes admitting new contexts at the same moment may
   * pass the limit by one each.
   */
  private async admit(appId: string, contextid: string, now: number): Promise<void> {
    const id = member(appId, contextid);
    if ((this.admitted.get(id) ?? 0) > now - ADMITTED_FOR_MS) return;
    const index = `${PREFIX}app:{${JSON.stringify(appId)}}`;
    const idleMs = 2 * this.windowSeconds * 1000;
    const admitted = await this.call(() => this.redis.presenceAdmit(index, now, idleMs, this.limits.contextsPerApp, contextid));
    if (admitted !== 1) throw tooManyContexts(this.limits.contextsPerApp, this.windowSeconds);
    if (this.admitted.size >= MAX_ADMITTED) this.admitted.clear();
    this.admitted.set(id, now);
  }

  /** `{…}` is a hash tag: on a Redis Cluster every key of the context is in the slot of the tag. */
  private prefix(appId: string, contextid: string): string {
    return `${PREFIX}{${member(appId, contextid)}}`;
  }

  /** The window's slots still inside it (the second they hold is later than now − window) add up to its figures. */
  private figures([id, total, active, window]: RawSignal, now: number): SignalView {
    const [kind, key] = JSON.parse(id) as [SignalKind, string];
    const oldestSecond = Math.floor(now / 1000) - this.windowSeconds;
    const slots = new Map<string, string>();
    for (let i = 0; i < window.length; i += 2) slots.set(window[i] as string, window[i + 1] as string);
    let windowvalue = 0;
    let operations = 0;
    for (const [field, second] of slots) {
      if (!field.startsWith('t') || Number(second) <= oldestSecond) continue;
      const slot = field.slice(1);
      windowvalue += Number(slots.get(`s${slot}`) ?? 0);
      operations += Number(slots.get(`c${slot}`) ?? 0);
    }
    return figuresOf({ key, kind, active, windowvalue, operations, total: Number(total) }, this.windowSeconds);
  }

  /** Contexts with an operation within two windows, counted across the cluster. */
  private async countContexts(): Promise<void> {
    const results = await this.redis
      .multi()
      .zremrangebyscore(INDEX, '-inf', Date.now() - 2 * this.windowSeconds * 1000)
      .zcard(INDEX)
      .exec();
    const count = results?.[1]?.[1];
    if (typeof count === 'number') this.contexts = count;
  }

  /** Redis unreachable: the request is answered 503, as when the database is. */
  private async call<T>(command: () => Promise<T>): Promise<T> {
    try {
      return await command();
    } catch (err) {
      this.log.warn({ err }, 'presence redis command failed');
      throw unavailable('Presence is unavailable (Redis is unreachable); try again shortly.');
    }
  }
}
