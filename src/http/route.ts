import type * as v from 'valibot';
import type { WriteLimit } from '../limits/config.js';
import type { Logger } from '../logger.js';
import type { Actor, Application, TokenScope } from '../apps/types.js';
import type { AnySchema } from './validation.js';
import type { JsonPieces } from './envelope.js';
import type { StreamedBody } from './stream.js';

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';

/** Who a route answers to: an application's API token, the operator's manage token, or anyone. */
export type Scope = 'app' | 'manage' | 'public';

/**
 * What a `client`-scoped API token needs besides itself on an app route: nothing (`public`
 * reads), a user token (`user`: writes and user-scoped reads, acting as that user), or an
 * admin's user token (`admin`: app administration). Default: `public` for GET, else `user`.
 * Server tokens are not narrowed by it; handlers check the user token either way.
 */
export type Access = 'public' | 'user' | 'admin';

export interface RequestContext<Body = unknown, Query = unknown> {
  requestId: string;
  log: Logger;
  params: Record<string, string>;
  body: Body;
  query: Query;
  /** Set on app-scoped routes; the application the token belongs to. */
  app: Application;
  /** The API token's scope; `server` on manage and public routes. */
  scope: TokenScope;
  actor: Actor | null;
}

/** A shared answer's bytes between text that is the same for every request it is sent to (made from the same read). */
export interface SharedJson {
  before: string;
  json: Buffer;
  after: string;
}

export interface Reply {
  data: unknown;
  /** When set, `data` already serialized to JSON: sent as is (hot cached reads), whole or in pieces. */
  json?: string | JsonPieces;
  /**
   * When set, `data` is this JSON, an answer many requests share (SharedAnswers): sent as is, and
   * gzipped once per answer for the clients that take it.
   */
  shared?: Buffer | SharedJson;
  message?: string;
  status?: number;
  /** When set, the answer is this body, sent as it is made (a backup file), not an envelope. */
  stream?: StreamedBody;
}

type Out<S> = S extends AnySchema ? v.InferOutput<S> : undefined;

export interface RouteDef<B extends AnySchema | undefined = AnySchema | undefined, Q extends AnySchema | undefined = AnySchema | undefined> {
  method: Method;
  /** For app routes relative to /api/v3/{appid}/, for manage routes to /api/v3/manage/; `:name` is a parameter. */
  path: string;
  scope?: Scope;
  access?: Access;
  body?: B;
  query?: Q;
  /** The per-user write budget the route draws on (README, Rate limits). */
  limit?: WriteLimit;
  /** Whether the route writes to the database: refused (507) while its disk is full. Default: true for every method but GET. */
  writes?: boolean;
  /** Error statuses this route may answer besides those every route of its kind does (API reference). */
  errors?: readonly number[];
  handler: (ctx: RequestContext<Out<B>, Out<Q>>) => Promise<Reply> | Reply;
}

/** Keeps the handler's context typed by its own schemas. */
export function route<B extends AnySchema | undefined = undefined, Q extends AnySchema | undefined = undefined>(def: RouteDef<B, Q>): RouteDef {
  return def as unknown as RouteDef;
}

export const ok = (data: unknown, message = ''): Reply => ({ data, message });

/** Whether a route writes to the database (RouteDef.writes). */
export const writesToDatabase = (route: RouteDef): boolean => route.writes ?? route.method !== 'GET';

/** A path parameter the route's path declares (the router always fills it). */
export const param = (params: Record<string, string>, name: string): string => params[name] as string;
