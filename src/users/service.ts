import type { Application } from '../apps/types.js';
import type { Db } from '../db/client.js';
import { badRequest, conflict, notFound } from '../errors.js';
import { newId } from '../ids.js';
import type { Bus } from '../realtime/bus.js';
import { assertValidHandle, handleCandidates, handleFrom } from './handles.js';
import * as store from './store.js';
import type { User, UserInput } from './types.js';
import { isUniqueViolation } from '../db/errors.js';
import { ReplicatedCache } from '../cache/replicated-cache.js';
import { internal } from '../internal-messages.js';
import { GroupCommit } from '../db/group-commit.js';
import { ReadBatcher, readByScope } from '../db/read-batcher.js';
import type { Logger } from '../logger.js';
import { commitMetrics } from '../metrics/registry.js';

/** How a request that names a handle held by someone else is answered. */
export type HandleConflict = 'variant' | 'reject';

export interface EnsureOptions {
  onHandleTaken: HandleConflict;
  /** What `get` just answered for the user, when the caller asked already: not looked up again. */
  known?: { user: User | undefined };
}

export type PurgeHandler = (app: Application, userId: string, byUserId: string) => Promise<void>;

/** A user's cache key; also the payload of `internal.userChanged`. */
const cacheKeyOf = (pool: string, userId: string) => `${pool}\u0000${userId}`;
const cacheKey = (app: Application, userId: string) => cacheKeyOf(app.userPool, userId);

/**
 * Users of a pool (an application's own, or its organization's shared one). Every write goes
 * through here so the in-memory cache that the hot paths read stays exact on every node:
 * a change is announced on the bus and each node drops its copy.
 */
export class UserService {
  private readonly cache: ReplicatedCache<User>;
  private readonly purgeHandlers: PurgeHandler[] = [];
  /** Cache misses of a moment (a crowd of new fans, the authors of pages read at once) read together, one query per pool. */
  private readonly lookups: ReadBatcher<Lookup, User>;
  /** New users of a moment inserted together (see `createAtOnce`). */
  private readonly creations: GroupCommit<NewUser, User | undefined>;

  constructor(
    private readonly db: Db,
    bus: Bus,
    log: Logger,
    cacheEntries: number,
  ) {
    this.cache = new ReplicatedCache<User>(bus, { invalidation: internal.userChanged, limit: cacheEntries });
    this.lookups = new ReadBatcher({
      read: (keys) =>
        readByScope(
          keys,
          (k) => k.pool,
          (pool, ofPool) =>
            store.findUsers(
              db,
              pool,
              ofPool.map((k) => k.userId),
            ),
        ),
      keyOf: (k) => cacheKeyOf(k.pool, k.userId),
      keyOfValue: (user) => cacheKeyOf(user.pool, user.userId),
      log,
      name: 'user_lookups',
    });
    this.creations = new GroupCommit((batch) => createAll(db, batch), log, 'creating users', commitMetrics('user_creations'));
  }

  async get(app: Application, userId: string): Promise<User | undefined> {
    const key = cacheKey(app, userId);
    const cached = this.cache.peek(key);
    if (cached !== undefined) return cached;
    return this.cache.load(key, () => this.lookups.get({ pool: app.userPool, userId }));
  }

  async require(app: Application, userId: string): Promise<User> {
    const user = await this.get(app, userId);
    if (user === undefined) throw notFound(`User ${userId} not found.`);
    return user;
  }

  /**
   * Several users, cache first; those not in memory are read in one query with every other user
   * asked for at the same moment (other requests' pages too): no N+1 when rendering lists.
   */
  async getMany(app: Application, userIds: Iterable<string>): Promise<Map<string, User>> {
    const found = new Map<string, User>();
    const missing: Promise<User | undefined>[] = [];
    for (const id of new Set(userIds)) {
      const cached = this.cache.peek(cacheKey(app, id));
      if (cached !== undefined) found.set(id, cached);
      else missing.push(this.get(app, id));
    }
    for (const user of await Promise.all(missing)) if (user !== undefined) found.set(user.userId, user);
    return found;
  }

  /**
   * Creates the user or updates the fields the input carries. First as a crowd would: the user
   * as the cache (exact across nodes) or a shared read knows them, a new one inserted with its
   * first-choice handle beside others arriving at once; a race or a handle taken falls back to
   * reading, choosing a free handle and writing alone.
   */
  async ensure(app: Application, input: UserInput, options: EnsureOptions): Promise<User> {
    try {
      const known = options.known !== undefined ? options.known.user : await this.get(app, input.userid);
      const done = known === undefined ? await this.createAtOnce(app, input) : await this.update(app, known, input, options, false);
      if (done !== undefined) return done;
    } catch (err) {
      if (!isUniqueViolation(err) && !(err instanceof RaceLost)) throw err;
    }
    for (let attempt = 0; attempt < 8; attempt++) {
      try {
        const existing = await store.findUser(this.db, app.userPool, input.userid);
        const contended = attempt > 0;
        return existing === undefined ? await this.create(app, input, options, contended) : await this.update(app, existing, input, options, contended);
      } catch (err) {
        // A concurrent request took the handle or created the user between our read and write.
        if (!isUniqueViolation(err) && !(err instanceof RaceLost)) throw err;
      }
    }
    throw conflict('The user is being changed by concurrent requests; try again.');
  }

  /**
   * The row a user new to the pool would be created with (the handle asked for, or one made from
   * the name), for a statement that creates them beside other writes (see `created`); undefined
   * when this node knows the user already.
   */
  newcomer(app: Application, input: UserInput): NewUser | undefined {
    return this.cache.peek(cacheKey(app, input.userid)) !== undefined ? undefined : newUserRow(app, input, firstHandle(input));
  }

  /** Take before writing a `newcomer`. */
  stamp(): number {
    return this.cache.stamp();
  }

  /** True when none of the users changed since `stamp` (taken before something was made from them), as far as this node can know. */
  unchangedSince(app: Application, userIds: Iterable<string>, stamp: number): boolean {
    return this.cache.unchangedSince(cacheKeys(app, userIds), stamp);
  }

  /**
   * After another statement created the user (a `newcomer`, `stamp` taken before it): kept here.
   * Nothing is announced: no node can hold a user that did not exist (absent users are never
   * stored), and a crowd of new fans would otherwise send every node one message per fan.
   */
  created(app: Application, user: User, stamp: number): void {
    this.cache.fill(cacheKey(app, user.userId), user, stamp);
  }

  async setEffect(app: Application, userId: string, effect: 'banned' | 'shadowBanned' | 'muted', on: boolean, expireSeconds: number | undefined): Promise<User> {
    const until = on && expireSeconds !== undefined && expireSeconds > 0 ? new Date(Date.now() + expireSeconds * 1000) : null;
    const untilField = `${effect}Until` as 'bannedUntil' | 'shadowBannedUntil' | 'mutedUntil';
    return this.patch(app, userId, { [effect]: on, [untilField]: until });
  }

  async patch(app: Application, userId: string, patch: store.UserPatch): Promise<User> {
    return this.patchWith(app, userId, () => store.updateUser(this.db, app.userPool, userId, patch));
  }

  private async patchWith(app: Application, userId: string, update: () => Promise<User | undefined>): Promise<User> {
    const user = await this.write(app, update);
    if (user === undefined) throw notFound(`User ${userId} not found.`);
    return user;
  }

  async delete(app: Application, userId: string): Promise<User> {
    const user = await store.deleteUser(this.db, app.userPool, userId);
    if (user === undefined) throw notFound(`User ${userId} not found.`);
    // Announce and forget: remembering the deleted row would keep answering for it from the cache.
    this.cache.invalidate(app.id, cacheKey(app, user.userId));
    return user;
  }

  /** Records the report (once per reporter) and adds it to the user's `reports`; the user as it now is, or undefined when already reported by this reporter. */
  async report(app: Application, userId: string, reportedBy: string, reportType: string): Promise<User | undefined> {
    const added = new Date();
    const recorded = await store.insertUserReport(this.db, { id: newId(), pool: app.userPool, userId, reportedBy, reportType, added });
    if (!recorded) return undefined;
    return this.patchWith(app, userId, () => store.appendUserReport(this.db, app.userPool, userId, { userid: reportedBy, issuedat: added.toISOString(), reason: reportType }));
  }

  /** Areas register what a global purge removes of theirs (chat messages, comments). */
  onPurge(handler: PurgeHandler): void {
    this.purgeHandlers.push(handler);
  }

  async purge(app: Application, userId: string, byUserId: string): Promise<void> {
    for (const handler of this.purgeHandlers) await handler(app, userId, byUserId);
  }

  /** The new user with the handle asked for (or made from the name), group-committed; undefined when the id or the handle is taken. */
  private async createAtOnce(app: Application, input: UserInput): Promise<User | undefined> {
    return this.write(app, () => this.creations.submit(newUserRow(app, input, firstHandle(input))));
  }

  private async create(app: Application, input: UserInput, options: EnsureOptions, contended: boolean): Promise<User> {
    // Without a display name the user is shown by the handle (api-surface.md, settled from the SDKs).
    const displayname = input.displayname ?? '';
    const handle =
      input.handle !== undefined && input.handle !== ''
        ? await this.freeHandle(app, input.handle, input.userid, options.onHandleTaken, contended)
        : await this.freeHandle(app, handleFrom(displayname || input.userid), input.userid, 'variant', contended);
    const user = await this.write(app, () => store.insertUser(this.db, newUserRow(app, input, handle)));
    if (user === undefined) throw new RaceLost();
    return user;
  }

  private async update(app: Application, existing: User, input: UserInput, options: EnsureOptions, contended: boolean): Promise<User> {
    const patch: store.UserPatch = {};
    if (input.handle !== undefined && input.handle !== '' && input.handle.toLowerCase() !== existing.handleLower) {
      const handle = await this.freeHandle(app, input.handle, input.userid, options.onHandleTaken, contended);
      patch.handle = handle;
      patch.handleLower = handle.toLowerCase();
    } else if (input.handle !== undefined && input.handle !== '' && input.handle !== existing.handle) {
      patch.handle = input.handle;
    }
    // Only what differs: a comment or join repeating the same fields writes nothing and invalidates no cache.
    if (input.displayname !== undefined && input.displayname !== '' && input.displayname !== existing.displayName) patch.displayName = input.displayname;
    if (input.pictureurl !== undefined && input.pictureurl !== existing.pictureUrl) patch.pictureUrl = input.pictureurl;
    if (input.profileurl !== undefined && input.profileurl !== existing.profileUrl) patch.profileUrl = input.profileurl;
    if (input.role !== undefined && input.role !== existing.role) patch.role = input.role;
    if (input.customtags !== undefined && JSON.stringify(input.customtags) !== JSON.stringify(existing.customTags)) patch.customTags = input.customtags;
    if (Object.keys(patch).length === 0) return existing;
    const user = await this.write(app, () => store.updateUser(this.db, app.userPool, input.userid, patch));
    if (user === undefined) throw new RaceLost();
    return user;
  }

  /**
   * The requested handle if free; else, in variant mode, the first free of handle1..handle99.
   * After losing a race for it (`contended`), a random free variant: requests racing for the same
   * base then spread out instead of colliding on the same next number again.
   */
  private async freeHandle(app: Application, requested: string, userId: string, onTaken: HandleConflict, contended: boolean): Promise<string> {
    assertValidHandle(requested);
    const candidates = onTaken === 'reject' ? [requested] : handleCandidates(requested);
    const taken = await store.takenHandles(this.db, app.userPool, candidates, userId);
    const free = candidates.filter((c) => !taken.has(c.toLowerCase()));
    const pick = contended ? free[Math.floor(Math.random() * free.length)] : free[0];
    if (pick !== undefined) return pick;
    if (onTaken === 'reject') throw conflict(`The handle ${requested} is already in use.`, { handle: 'is already in use' });
    throw badRequest(`The handle ${requested} and all its numbered variants are in use.`, { handle: 'no free variant' });
  }

  /**
   * Runs a write that returns the user's row and announces the change. The row is kept in the
   * cache unless a change announced during the write may be newer than it.
   */
  private async write(app: Application, write: () => Promise<User | undefined>): Promise<User | undefined> {
    const since = this.cache.stamp();
    const user = await write();
    if (user !== undefined) this.cache.changed(app.id, cacheKey(app, user.userId), user, since);
    return user;
  }
}

/** The users' cache keys, made as they are looked at: when nothing changed since a stamp, none is. */
function* cacheKeys(app: Application, userIds: Iterable<string>): Generator<string> {
  for (const userId of userIds) yield cacheKey(app, userId);
}

class RaceLost extends Error {}

interface Lookup {
  pool: string;
  userId: string;
}

type NewUser = store.NewUserRow;

/** The handle a new user gets at first: the one asked for, or one made from the name. */
function firstHandle(input: UserInput): string {
  const handle = input.handle !== undefined && input.handle !== '' ? input.handle : handleFrom(input.displayname || input.userid);
  assertValidHandle(handle);
  return handle;
}

function newUserRow(app: Application, input: UserInput, handle: string): NewUser {
  return {
    pool: app.userPool,
    userId: input.userid,
    handle,
    handleLower: handle.toLowerCase(),
    // Without a display name the user is shown by the handle (api-surface.md, settled from the SDKs).
    displayName: input.displayname || handle,
    pictureUrl: input.pictureurl ?? '',
    profileUrl: input.profileurl ?? '',
    role: input.role ?? 'user',
    customTags: input.customtags ?? [],
  };
}

/** One insert for the batch; of rows for the same user, only the first is written. */
async function createAll(db: Db, batch: NewUser[]): Promise<(User | undefined)[]> {
  const key = (r: { pool: string; userId: string }) => `${r.pool}\u0000${r.userId}`;
  const firstOf = new Map<string, NewUser>();
  for (const row of batch) if (!firstOf.has(key(row))) firstOf.set(key(row), row);
  const created = new Map((await store.insertUsers(db, [...firstOf.values()])).map((u) => [key(u), u]));
  return batch.map((row) => (firstOf.get(key(row)) === row ? created.get(key(row)) : undefined));
}
