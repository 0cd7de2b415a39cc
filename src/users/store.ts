import { and, asc, eq, gt, ilike, or, sql } from 'drizzle-orm';
import { textArrayLiteral, plannedOnce } from '../db/arrays.js';
import { rows, statementOnce, type Queryable } from '../db/client.js';
import { containing, likeEscape } from '../db/like.js';
import { userReports, users } from '../db/schema/index.js';
import type { UserReportEntry } from '../db/schema/users.js';
import type { User } from './types.js';

export type UserPatch = Partial<Omit<typeof users.$inferInsert, 'pool' | 'userId' | 'added'>>;

export async function findUser(q: Queryable, pool: string, userId: string): Promise<User | undefined> {
  const [row] = await q
    .select()
    .from(users)
    .where(and(eq(users.pool, pool), eq(users.userId, userId)));
  return row;
}

/** The columns of `users` under the names of `User`, for the hot statements run without drizzle's builder and mapping. */
const USER_COLUMNS = sql.raw(
  `pool, user_id as "userId", handle, handle_lower as "handleLower", display_name as "displayName", picture_url as "pictureUrl", profile_url as "profileUrl", role, custom_tags as "customTags", banned, banned_until as "bannedUntil", shadow_banned as "shadowBanned", shadow_banned_until as "shadowBannedUntil", muted, muted_until as "mutedUntil", reports, added, when_modified as "whenModified"`,
);

const at = (value: unknown): Date => (value instanceof Date ? value : new Date(String(value)));
const atOrNull = (value: unknown): Date | null => (value === null || value === undefined ? null : at(value));

/** A row of USER_COLUMNS as `User` (its timestamps as dates, whichever driver parsed them). */
export function userOfRow(r: User): User {
  return { ...r, bannedUntil: atOrNull(r.bannedUntil), shadowBannedUntil: atOrNull(r.shadowBannedUntil), mutedUntil: atOrNull(r.mutedUntil), added: at(r.added), whenModified: at(r.whenModified) };
}

/**
 * Each wanted id looked up on its own (the primary key): written as `user_id = any(ids)`, Postgres's
 * generic plan for a pool of a few hundred users took the trigram index of user ids (search) and
 * spent 2.6–3.6 ms on 10 users where this takes 0.2 ms.
 */
const FIND_USERS = statementOnce<User>(
  'users_find_many',
  sql`select found.* from unnest(${plannedOnce('userIds', 'text[]')}) as wanted(id)
    cross join lateral (select ${USER_COLUMNS} from users where pool = ${sql.placeholder('pool')} and user_id = wanted.id) as found`,
);

/** Users of a pool by id, in one named statement (a crowd's cache misses, the authors of a page). */
export async function findUsers(q: Queryable, pool: string, userIds: string[]): Promise<User[]> {
  if (userIds.length === 0) return [];
  return (await FIND_USERS(q, { pool, userIds: textArrayLiteral(userIds) })).map(userOfRow);
}

/**
 * Users of a pool whose lower-case handle is one of `handlesLower`, each looked up on the pool's
 * handle index (see FIND_USERS: as `handle_lower in (…)`, a small pool's plan took the trigram
 * index of handles, 0.7–1.4 ms for three handles).
 */
function byHandles(q: Queryable, pool: string, handlesLower: string[]): Promise<{ h: string; u: string }[]> {
  return rows<{ h: string; u: string }>(
    q,
    sql`select found.h, found.u from unnest(${textArrayLiteral(handlesLower)}::text[]) as wanted(handle)
      cross join lateral (select handle_lower as h, user_id as u from users where pool = ${pool} and handle_lower = wanted.handle) as found`,
  );
}

/** Of the candidate handles, those held by someone other than `userId`. */
export async function takenHandles(q: Queryable, pool: string, candidates: string[], userId: string): Promise<Set<string>> {
  const found = await byHandles(
    q,
    pool,
    candidates.map((c) => c.toLowerCase()),
  );
  return new Set(found.filter((r) => r.u !== userId).map((r) => r.h));
}

/** User ids of the given handles (lower case) in a pool, in one query. */
export async function usersByHandle(q: Queryable, pool: string, handlesLower: string[]): Promise<Map<string, string>> {
  if (handlesLower.length === 0) return new Map();
  return new Map((await byHandles(q, pool, handlesLower)).map((r) => [r.h, r.u]));
}

/** Inserts a new user; undefined when the userid already exists (a concurrent create won). */
export async function insertUser(q: Queryable, row: typeof users.$inferInsert): Promise<User | undefined> {
  const [created] = await q
    .insert(users)
    .values(row)
    .onConflictDoNothing({ target: [users.pool, users.userId] })
    .returning();
  return created;
}

/**
 * The statement inserting new users (skipping those whose id or handle is taken), added at the
 * placeholder `usersAdded`; another statement may run it as a common table expression. It returns
 * only the keys of the users it created: the caller knows the rest (`createdUser`), and reading
 * back every column cost a crowd of new fans a tenth of a join. Its columns are placeholders that
 * `newUserValues` fills (see statementOnce).
 */
export const INSERTING_USERS = sql`insert into users (pool, user_id, handle, handle_lower, display_name, picture_url, profile_url, role, custom_tags, added, when_modified)
    select pool, user_id, handle, handle_lower, display_name, picture_url, profile_url, role, custom_tags::jsonb, ${sql.placeholder('usersAdded')}::timestamptz, ${sql.placeholder('usersAdded')}::timestamptz
    from unnest(${sql.placeholder('pool')}::text[], ${sql.placeholder('userId')}::text[], ${sql.placeholder('handle')}::text[], ${sql.placeholder('handleLower')}::text[], ${sql.placeholder('displayName')}::text[], ${sql.placeholder('pictureUrl')}::text[], ${sql.placeholder('profileUrl')}::text[], ${sql.placeholder('role')}::text[], ${sql.placeholder('customTags')}::text[])
      as n(pool, user_id, handle, handle_lower, display_name, picture_url, profile_url, role, custom_tags)
    on conflict do nothing
    returning pool, user_id as "userId"`;

/** The values of `INSERTING_USERS`'s placeholders for `rows`, added at `added`. */
export function newUserValues(rows: NewUserRow[], added: Date): Record<keyof NewUserRow | 'usersAdded', string> {
  const column = (pick: (r: NewUserRow) => string) => textArrayLiteral(rows.map(pick));
  return {
    pool: column((r) => r.pool),
    userId: column((r) => r.userId),
    handle: column((r) => r.handle),
    handleLower: column((r) => r.handleLower),
    displayName: column((r) => r.displayName),
    pictureUrl: column((r) => r.pictureUrl),
    profileUrl: column((r) => r.profileUrl),
    role: column((r) => r.role),
    customTags: column((r) => JSON.stringify(r.customTags)),
    usersAdded: added.toISOString(),
  };
}

/** A user as `INSERTING_USERS` created it from `row` at `added`: the table's defaults for the rest. */
export function createdUser(row: NewUserRow, added: Date): User {
  return {
    pool: row.pool,
    userId: row.userId,
    handle: row.handle,
    handleLower: row.handleLower,
    displayName: row.displayName,
    pictureUrl: row.pictureUrl,
    profileUrl: row.profileUrl,
    role: row.role,
    customTags: row.customTags,
    banned: false,
    bannedUntil: null,
    shadowBanned: false,
    shadowBannedUntil: null,
    muted: false,
    mutedUntil: null,
    reports: [],
    added,
    whenModified: added,
  };
}

const INSERT_USERS = statementOnce<{ pool: string; userId: string }>('users_insert_many', INSERTING_USERS);

/** Several new users in one named statement; a row whose user id or handle is taken is skipped (not returned). */
export async function insertUsers(q: Queryable, rows: NewUserRow[]): Promise<User[]> {
  const added = new Date();
  const created = new Set((await INSERT_USERS(q, newUserValues(rows, added))).map((c) => `${c.pool}\u0000${c.userId}`));
  return rows.filter((r) => created.has(`${r.pool}\u0000${r.userId}`)).map((r) => createdUser(r, added));
}

/** What a new user is created with; the rest takes the table's defaults. */
export interface NewUserRow {
  pool: string;
  userId: string;
  handle: string;
  handleLower: string;
  displayName: string;
  pictureUrl: string;
  profileUrl: string;
  role: string;
  customTags: string[];
}

export async function updateUser(q: Queryable, pool: string, userId: string, patch: UserPatch): Promise<User | undefined> {
  const [row] = await q
    .update(users)
    .set({ ...patch, whenModified: new Date() })
    .where(and(eq(users.pool, pool), eq(users.userId, userId)))
    .returning();
  return row;
}

export async function deleteUser(q: Queryable, pool: string, userId: string): Promise<User | undefined> {
  const [row] = await q
    .delete(users)
    .where(and(eq(users.pool, pool), eq(users.userId, userId)))
    .returning();
  return row;
}

export async function listUsers(q: Queryable, pool: string, after: string, limit: number): Promise<User[]> {
  return q
    .select()
    .from(users)
    .where(and(eq(users.pool, pool), gt(users.userId, after)))
    .orderBy(asc(users.userId))
    .limit(limit);
}

export interface UserSearch {
  handle?: string | undefined;
  name?: string | undefined;
  userid?: string | undefined;
}

/** Handle and userid match by prefix, name as a substring; all case-insensitive. */
export async function searchUsers(q: Queryable, pool: string, search: UserSearch, after: string, limit: number): Promise<User[]> {
  const terms = [];
  if (search.handle !== undefined) terms.push(sql`${users.handleLower} like ${`${likeEscape(search.handle.toLowerCase())}%`}`);
  if (search.userid !== undefined) terms.push(ilike(users.userId, `${likeEscape(search.userid)}%`));
  if (search.name !== undefined) terms.push(ilike(users.displayName, containing(search.name)));
  return q
    .select()
    .from(users)
    .where(and(eq(users.pool, pool), gt(users.userId, after), or(...terms)))
    .orderBy(asc(users.userId))
    .limit(limit);
}

/** Records a report once per reporter; false when this reporter had reported the user already. */
/** Appends one entry to the user's `reports` in the statement itself, so concurrent reports all land. */
export async function appendUserReport(q: Queryable, pool: string, userId: string, entry: UserReportEntry): Promise<User | undefined> {
  const [row] = await q
    .update(users)
    .set({ reports: sql`${users.reports} || ${JSON.stringify([entry])}::jsonb`, whenModified: new Date() })
    .where(and(eq(users.pool, pool), eq(users.userId, userId)))
    .returning();
  return row;
}

export async function insertUserReport(q: Queryable, row: typeof userReports.$inferInsert): Promise<boolean> {
  const inserted = await q.insert(userReports).values(row).onConflictDoNothing().returning({ id: userReports.id });
  return inserted.length > 0;
}

export interface ReportedUserRow {
  user_id: string;
  reports: { userid: string; reporttype: string; added: string }[];
  last: string;
  /** The last report's time at full (microsecond) precision: the queue's paging key with user_id. */
  lastkey: string;
}

/**
 * Reported users, most recently reported first, each with its reports. Pages by
 * (last report time, user id), so users reported within the same millisecond are neither lost
 * nor repeated across pages.
 */
export async function listReportedUsers(q: Queryable, pool: string, before: [string, string] | undefined, limit: number) {
  return rows<ReportedUserRow>(
    q,
    sql`
    select user_id, max(added) as last,
      to_char(max(added) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as lastkey,
      json_agg(json_build_object('userid', reported_by, 'reporttype', report_type, 'added', to_char(added at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) order by added) as reports
    from ${userReports}
    where pool = ${pool}
    group by user_id
    having ${before === undefined ? sql`true` : sql`(max(added), user_id) < (${before[0]}::timestamptz, ${before[1]}::text)`}
    order by max(added) desc, user_id desc
    limit ${limit}`,
  );
}
