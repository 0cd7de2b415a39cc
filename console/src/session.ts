/**
 * Who the console acts as. Kept in sessionStorage (gone when the tab closes, never in
 * localStorage or a cookie) and never rendered: the page shows only the app id and the user.
 */
export interface Session {
  appid: string;
  /** The API token: a client token with a moderator's JWT, or one the manage token minted. */
  token: string;
  /** The moderator's user token, or '' when signed in with the manage token. */
  jwt: string;
  /** The moderator's user id (from the JWT, or chosen at the manage sign-in). */
  userid: string;
  role: 'moderator' | 'admin';
}

const KEY = 'engage-console-session';

export function loadSession(): Session | null {
  try {
    const raw = sessionStorage.getItem(KEY);
    return raw === null ? null : (JSON.parse(raw) as Session);
  } catch {
    return null;
  }
}

export function saveSession(session: Session | null): void {
  if (session === null) sessionStorage.removeItem(KEY);
  else sessionStorage.setItem(KEY, JSON.stringify(session));
}

/** The claims of a user token, read without verifying it (the server verifies every request). */
export function jwtClaims(jwt: string): { userid?: unknown; role?: unknown } {
  const part = jwt.split('.')[1];
  if (part === undefined) return {};
  try {
    return JSON.parse(atob(part.replace(/-/g, '+').replace(/_/g, '/'))) as { userid?: unknown; role?: unknown };
  } catch {
    return {};
  }
}
