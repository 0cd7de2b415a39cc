import { jwtVerify } from 'jose';
import type { Application } from '../apps/types.js';
import { forbidden } from './errors.js';
import type { Actor, RequestContext } from './route.js';

export const NOT_AUTHORIZED = 'Request is not authorized with a token.';

const keys = new WeakMap<Application, Uint8Array>();
const ROLES = new Set(['user', 'moderator', 'admin']);

/** Verifies an `Authorization: Bearer` user token (HS256, the application's secret). */
export async function verifyUserToken(app: Application, header: string): Promise<Actor> {
  const match = /^Bearer\s+(\S+)$/i.exec(header);
  if (match === null) throw forbidden('The Authorization header must be "Bearer <user token>".');
  let key = keys.get(app);
  if (key === undefined) {
    key = new TextEncoder().encode(app.jwtSecret);
    keys.set(app, key);
  }
  try {
    const { payload } = await jwtVerify(match[1] as string, key, { algorithms: ['HS256'] });
    const userid = payload['userid'];
    const role = payload['role'] ?? 'user';
    if (typeof userid !== 'string' || userid === '' || typeof role !== 'string' || !ROLES.has(role)) throw new Error('claims');
    if (payload.aud !== undefined) {
      const audiences = Array.isArray(payload.aud) ? payload.aud : [payload.aud];
      if (!audiences.includes(app.id)) throw new Error('audience');
    }
    return { userid, role: role as Actor['role'] };
  } catch {
    throw forbidden('The user token is not valid for this application.');
  }
}

/** A user token may act only as its own user, unless it is a moderator's or an admin's. */
/** A user token acts only as its own user; the API token (no actor), moderators and admins act as anyone. */
export function mayActAs(actor: Actor | null, userid: string): boolean {
  return actor === null || actor.userid === userid || actor.role !== 'user';
}

export function assertActingAs(ctx: RequestContext, userid: string): void {
  if (!mayActAs(ctx.actor, userid)) throw forbidden('The user token does not allow acting as another user.');
}

export function assertModerator(ctx: RequestContext): void {
  if (ctx.actor !== null && ctx.actor.role === 'user') throw forbidden('This operation needs a moderator or admin.');
}

export function assertAdmin(ctx: RequestContext): void {
  if (ctx.actor !== null && ctx.actor.role !== 'admin') throw forbidden('This operation needs an admin.');
}
