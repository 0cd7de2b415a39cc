/** The JSON inside a base64url segment (a JWT payload, a server cursor); undefined when it is not one. */
function decodeJson(segment: string): unknown {
  try {
    const base64 = segment.replace(/-/g, '+').replace(/_/g, '/');
    const bytes = Uint8Array.from(atob(base64.padEnd(base64.length + ((4 - (base64.length % 4)) % 4), '=')), (c) => c.charCodeAt(0));
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return undefined;
  }
}

/** The feed position a room `updates` cursor holds (the client ships with the server whose cursors it reads). */
export function seqOfCursor(cursor: string | undefined): number | undefined {
  const value = cursor === undefined ? undefined : (decodeJson(cursor) as { u?: unknown } | undefined);
  return typeof value?.u === 'number' ? value.u : undefined;
}

/** True when the JWT's `exp` has passed (or passes within `marginMs`); false when it has none or cannot be read. */
export function tokenExpired(jwt: string, marginMs: number): boolean {
  const payload = decodeJson(jwt.split('.')[1] ?? '') as { exp?: unknown } | undefined;
  return typeof payload?.exp === 'number' && payload.exp * 1000 <= Date.now() + marginMs;
}
