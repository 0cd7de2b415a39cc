/**
 * Tallies as one user should see them: wherever they took a type but are not among its latest
 * users, they lead its list (their row is older than every listed one), so an app can show
 * "you liked this" however large the crowd. Works on stored tallies (user ids) and rendered ones.
 */
export function withOwn<U, T extends { type: string; count: number; users: U[] }>(tallies: T[], own: ReadonlySet<string>, mine: U, isMine: (u: U) => boolean): T[] {
  if (own.size === 0) return tallies;
  return tallies.map((t) => (own.has(t.type) && t.count > 0 && !t.users.some(isMine) ? { ...t, users: [mine, ...t.users] } : t));
}
