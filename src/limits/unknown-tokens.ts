/** How long a token the database did not know is answered from memory. */
const REMEMBER_MS = 5000;
/** Beyond this many remembered tokens the memory starts over (a flood of distinct tokens). */
const MAX_REMEMBERED = 10_000;

/**
 * API tokens recently looked up and not found, so a client repeating an unknown token does not
 * cost a database query each time. Nothing needs forgetting when a token is created: tokens are
 * random secrets made at creation, so none is presented before it exists; the few seconds bound
 * what any node believes should that ever change.
 */
export class UnknownTokens {
  private readonly until = new Map<string, number>();

  has(token: string): boolean {
    const until = this.until.get(token);
    if (until === undefined) return false;
    if (until > Date.now()) return true;
    this.until.delete(token);
    return false;
  }

  add(token: string): void {
    if (this.until.size >= MAX_REMEMBERED) this.until.clear();
    this.until.set(token, Date.now() + REMEMBER_MS);
  }
}
