import { jwtVerify } from 'jose';
import type { AppDirectory } from '../apps/directory.js';
import type { Actor, Application, Credential } from '../apps/types.js';
import { forbidden, unauthorized } from '../errors.js';
import type { RequestContext, RouteDef } from './route.js';

export const NOT_AUTHORIZED = 'Request is not authorized with a token.';
const NEEDS_USER_TOKEN = 'A client token needs a user token (Authorization: Bearer) for this.';

const keys = new WeakMap<Application, Uint8Array>();
const ROLES = new Set(['user', 'moderator', 'admin']);

/** The credential of an app route's API token; a missing, unknown or other application's token is refused. */
export async function authenticateApp(apps: AppDirectory, appId: string, token: string): Promise<Credential> {
  // A remembered token (the hot paths' case) is answered without another await.
  const found = token === '' ? undefined : (apps.cached(appId, token) ?? (await apps.authenticate(appId, token)));
  if (found === undefined || found === null) throw unauthorized(NOT_AUTHORIZED);
  return found;
}

/** Verifies an `Authorization: Bearer` user token (HS256, the application's secret). */
export async function verifyUserToken(app: Application, header: string): Promise<Actor> {
  const match = /^Bearer\s+(\S+)$/i.exec(header);
  if (match === null) throw unauthorized('The Authorization header must be "Bearer <user token>".');
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
    throw unauthorized('The user token is not valid for this application.');
  }
}

/** What a client token may reach on this route (route.ts, Access): a lookup on the route and the verified user token. */
export function assertClientAccess(route: RouteDef, actor: Actor | null): void {
  const access = route.access ?? (route.method === 'GET' ? 'public' : 'user');
  if (access === 'public') return;
  if (actor === null) throw forbidden(NEEDS_USER_TOKEN);
  if (access === 'admin' && actor.role !== 'admin') throw forbidden("A client token needs an admin's user token for application administration.");
}

/** A user token acts only as its own user; the API token (no actor), moderators and admins act as anyone. */
export function mayActAs(actor: Actor | null, userid: string): boolean {
  return actor === null || actor.userid === userid || actor.role !== 'user';
}

/** Without a user token only a server token is the trusted backend; a client token acts as nobody. */
const trustedBackend = (ctx: RequestContext) => ctx.scope === 'server';

export function assertActingAs(ctx: RequestContext, userid: string): void {
  if (ctx.actor === null && !trustedBackend(ctx)) throw forbidden(NEEDS_USER_TOKEN);
  if (!mayActAs(ctx.actor, userid)) throw forbidden('The user token does not allow acting as another user.');
}

/** True when assertActingAs would let the request act as `userid`: the user's own token, a moderator's or admin's, or the server token alone. */
export const mayActFor = (ctx: RequestContext, userid: string): boolean => (ctx.actor === null ? trustedBackend(ctx) : mayActAs(ctx.actor, userid));

/** The user whose private view a request may take: the one named when the caller may act as them, else the user token's. */
export function viewerOf(ctx: RequestContext, userid: string | undefined): string | undefined {
  if (userid === undefined || userid === '' || (ctx.actor === null && !trustedBackend(ctx)) || !mayActAs(ctx.actor, userid)) return ctx.actor?.userid;
  return userid;
}

export function assertModerator(ctx: RequestContext): void {
  if (ctx.actor === null ? !trustedBackend(ctx) : ctx.actor.role === 'user') throw forbidden('This operation needs a moderator or admin.');
}

export function assertAdmin(ctx: RequestContext): void {
  if (ctx.actor === null ? !trustedBackend(ctx) : ctx.actor.role !== 'admin') throw forbidden('This operation needs an admin.');
}

/** A plain user's token manages only what it owns; moderators, admins and the API token alone manage anything. */
export function assertOwnerOrModerator(ctx: RequestContext, ownerId: string | null, what: string): void {
  if (ctx.actor === null ? !trustedBackend(ctx) : ctx.actor.role === 'user' && ctx.actor.userid !== ownerId) throw forbidden(`Only the owner of the ${what} or a moderator can do this.`);
}

/**
 * The owner a create or update may record: a plain user's token may name only itself (and when
 * it names nobody on create, it becomes the owner); others may name anyone.
 */
export function ownerFor<Given extends string | null | undefined>(ctx: RequestContext, given: Given, field: string, creating: boolean): Given | string | undefined {
  if (ctx.actor === null || ctx.actor.role !== 'user') return given;
  if (typeof given === 'string' && given !== ctx.actor.userid) throw forbidden(`A user token may set ${field} only to its own user.`, { [field]: 'must be your own userid' });
  return given ?? (creating ? ctx.actor.userid : undefined);
}

/** Only a trusted caller (the server token alone, or an admin's user token) may set a user's role in passing. */
export const roleIfTrusted = <R>(ctx: RequestContext, role: R | undefined): R | undefined => ((ctx.actor === null && trustedBackend(ctx)) || ctx.actor?.role === 'admin' ? role : undefined);
