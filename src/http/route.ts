import type * as v from 'valibot';
import type { Logger } from '../logger.js';
import type { Application } from '../apps/types.js';
import type { AnySchema } from './validation.js';

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';

/** Who a route answers to: an application's API token, the operator's manage token, or anyone. */
export type Scope = 'app' | 'manage' | 'public';

/** A user token (Authorization: Bearer) narrows the caller to that user's rights. */
export interface Actor {
  userid: string;
  role: 'user' | 'moderator' | 'admin';
}

export interface RequestContext<Body = unknown, Query = unknown> {
  requestId: string;
  log: Logger;
  params: Record<string, string>;
  body: Body;
  query: Query;
  /** Set on app-scoped routes; the application the token belongs to. */
  app: Application;
  actor: Actor | null;
}

export interface Reply {
  data: unknown;
  /** When set, `data` already serialized to JSON: sent as is (hot cached reads). */
  json?: string;
  message?: string;
  status?: number;
}

type Out<S> = S extends AnySchema ? v.InferOutput<S> : undefined;

export interface RouteDef<B extends AnySchema | undefined = AnySchema | undefined, Q extends AnySchema | undefined = AnySchema | undefined> {
  method: Method;
  /** For app routes relative to /api/v3/{appid}/, for manage routes to /api/v3/manage/; `:name` is a parameter. */
  path: string;
  scope?: Scope;
  body?: B;
  query?: Q;
  /** Error statuses this route may answer besides those every route of its kind does (API reference). */
  errors?: readonly number[];
  handler: (ctx: RequestContext<Out<B>, Out<Q>>) => Promise<Reply> | Reply;
}

/** Keeps the handler's context typed by its own schemas. */
export function route<B extends AnySchema | undefined = undefined, Q extends AnySchema | undefined = undefined>(def: RouteDef<B, Q>): RouteDef {
  return def as unknown as RouteDef;
}

export const ok = (data: unknown, message = ''): Reply => ({ data, message });

/** A path parameter the route's path declares (the router always fills it). */
export const param = (params: Record<string, string>, name: string): string => params[name] as string;
