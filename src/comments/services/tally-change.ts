import type { Tally } from '../../db/schema/comments.js';

/**
 * One user's committed change on one target: `from` type left, `to` type taken (null: none).
 * `at` is when the user's row was made, when it was made now (it then goes last in `to`'s list);
 * null when the row kept an older time (a vote changed side), so `to`'s list is read again.
 */
export interface Transition {
  userId: string;
  from: string | null;
  to: string | null;
  at: Date | null;
}

export interface Retallied {
  tallies: Tally[];
  /** Types whose latest users must be read again from their rows (see `refilled`). */
  refill: string[];
}

/**
 * A batch's transitions applied to the tallies kept on the row: exact counts, and per type the
 * latest `shown` users (oldest of them first). Users who joined now are appended; a type that
 * lost a listed user, or gained one with an older time, is marked for a refill from its rows.
 * A type that falls to zero keeps its entry (count 0, no users) when `keepEmptied`, as reactions
 * do; votes drop it.
 */
export function applyTransitions(before: Tally[], transitions: Transition[], shown: number, keepEmptied: boolean): Retallied {
  const byType = new Map(before.map((t) => [t.type, { ...t, users: [...t.users] }]));
  const tallyOf = (type: string) => {
    let tally = byType.get(type);
    if (tally === undefined) {
      tally = { type, count: 0, users: [] };
      byType.set(type, tally);
    }
    return tally;
  };
  const refill = new Set<string>();
  const appended = transitions.filter((t) => t.to !== null && t.at !== null).sort((a, b) => (a.at as Date).getTime() - (b.at as Date).getTime() || (a.userId < b.userId ? -1 : 1));
  for (const t of transitions) {
    if (t.from !== null) {
      const tally = tallyOf(t.from);
      tally.count -= 1;
      const at = tally.users.indexOf(t.userId);
      if (at >= 0) tally.users.splice(at, 1);
    }
    if (t.to !== null) {
      tallyOf(t.to).count += 1;
      if (t.at === null) refill.add(t.to);
    }
  }
  for (const t of appended) tallyOf(t.to as string).users.push(t.userId);
  const tallies: Tally[] = [];
  for (const tally of byType.values()) {
    if (tally.count <= 0 && !keepEmptied) continue;
    if (tally.users.length > shown) tally.users = tally.users.slice(-shown);
    if (tally.users.length < Math.min(tally.count, shown)) refill.add(tally.type);
    tallies.push(tally);
  }
  return { tallies, refill: [...refill].filter((type) => byType.get(type)?.count !== 0) };
}

/** The tallies with the refilled types' users (latest first from the store) in place, oldest first. */
export function refilled(tallies: Tally[], latest: Map<string, string[]>): Tally[] {
  return tallies.map((t) => {
    const users = latest.get(t.type);
    return users === undefined ? t : { ...t, users: [...users].reverse() };
  });
}

/**
 * Tallies as one user should see them: wherever they took a type but are not among its latest
 * users, they lead its list (their row is older than every listed one), so an app can show
 * "you liked this" however large the crowd. Works on stored tallies (user ids) and rendered ones.
 */
export function withOwn<U, T extends { type: string; count: number; users: U[] }>(tallies: T[], own: ReadonlySet<string>, mine: U, isMine: (u: U) => boolean): T[] {
  if (own.size === 0) return tallies;
  return tallies.map((t) => (own.has(t.type) && t.count > 0 && !t.users.some(isMine) ? { ...t, users: [mine, ...t.users] } : t));
}

/** Each user's types after the transitions, from their types before. */
export function typesAfter(before: Map<string, Set<string>>, transitions: Transition[]): Map<string, Set<string>> {
  const after = new Map([...before].map(([user, types]) => [user, new Set(types)]));
  for (const t of transitions) {
    let types = after.get(t.userId);
    if (types === undefined) {
      types = new Set();
      after.set(t.userId, types);
    }
    if (t.from !== null) types.delete(t.from);
    if (t.to !== null) types.add(t.to);
  }
  return after;
}
