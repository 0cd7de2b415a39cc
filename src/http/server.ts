import { timingSafeEqual } from 'node:crypto';
import { App, type HttpRequest, type HttpResponse, type TemplatedApp } from 'uWebSockets.js';
import type { AppDirectory } from '../apps/directory.js';
import type { Actor, TokenScope } from '../apps/types.js';
import { isDatabaseUnavailable } from '../db/errors.js';
import { badRequest, DomainError, unauthorized } from '../errors.js';
import type { Limits } from '../limits/limits.js';
import type { Logger } from '../logger.js';
import { RequestMetrics } from '../metrics/http.js';
import { assertClientAccess, authenticateApp, verifyUserToken } from './auth.js';
import { NOT_UTF8, readBody, type BodyResult } from './body.js';
import type { CorsPolicy } from './cors.js';
import type { Drain } from './drain.js';
import { envelope, envelopeAroundJson, envelopeAroundPieces } from './envelope.js';
import { errorHeaders, HTTP_STATUS, RATE_LIMIT_HEADERS, UNAVAILABLE_RETRY_AFTER_SECONDS } from './error-status.js';
import { normalizeBody, parseQuery } from './normalize.js';
import { fullPath } from './paths.js';
import { type Method, type Reply, type RequestContext, type RouteDef, type SharedJson, writesToDatabase } from './route.js';
import { Router } from './router.js';
import { isMethod, methodNotAllowed, notAMethod } from './request-line.js';
import { endAnswer } from './head.js';
import { answerOnce, compressible, GZIP_FROM_BYTES, gzippedForOne, takesGzip } from './encoding.js';
import { HEADERS_LIMIT, HEADERS_TOO_LARGE } from './header-limit.js';
import { statusLine } from './status.js';
import { sendStream, type StreamedBody } from './stream.js';
import { mayHoldUnstorable } from './storable.js';
import { decodePathParams, validate } from './validation.js';

const METHODS = new Set<string>(['GET', 'POST', 'PUT', 'DELETE', 'PATCH']);
const CORS_HEADERS = 'content-type, x-api-token, x-manage-token, authorization, x-request-id';
const CORS_METHODS = 'GET, HEAD, POST, PUT, DELETE, PATCH, OPTIONS';
const EXPOSED_HEADERS = `x-request-id, allow, ${RATE_LIMIT_HEADERS}`;

export interface HttpDeps {
  log: Logger;
  apps: AppDirectory;
  bodyLimit: number;
  manageToken: string;
  cors: CorsPolicy;
  limits: Limits;
  routes: RouteDef[];
  drain: Drain;
  bus: CrossNodeChanges;
  storage: StorageRefusals;
}

/** The storage state's part in answering (StorageGuard): writes are refused while the database's disk is full. */
export interface StorageRefusals {
  /** The refusal a write gets now, or undefined. */
  refusal(): DomainError | undefined;
  /** Told of a request's failure: true when it failed for want of space (the state then holds). */
  failed(err: unknown): boolean;
}

/** The bus's part in freshness across nodes: a request is answered once every node applied the invalidations it sent. */
export interface CrossNodeChanges {
  settledAcrossNodes<T>(work: () => T | Promise<T>): T | Promise<T>;
}

/** What uWS gives synchronously: it must be copied before the handler returns. */
interface Incoming {
  method: string;
  url: string;
  query: string;
  apiToken: string;
  manageToken: string;
  authorization: string;
  forwardedFor: string;
  /** The client takes gzip. */
  gzip: boolean;
  requestId: string;
  hasBody: boolean;
  /** The size of what the request line and the headers read here hold. */
  headerBytes: number;
}

interface State {
  aborted: boolean;
  /** What else an abort ends (a streamed answer's body). */
  whenAborted?: () => void;
  /** Answered, or aborted: the drain no longer waits for it. */
  settled: boolean;
  started: number;
}

let requestCounter = 0;
const requestPrefix = Date.now().toString(36);
export function createHttpApp(deps: HttpDeps): TemplatedApp {
  const router = new Router();
  const metrics = new RequestMetrics();
  for (const r of deps.routes) {
    router.add(fullPath(r), r);
    metrics.add(r, fullPath(r));
  }
  const manageToken = Buffer.from(deps.manageToken);
  // The level is fixed at start: when access lines are off, a request builds no log object.
  const accessLog = deps.log.isLevelEnabled('info');
  const app = App();

  app.options('/*', (res, req) => {
    const allowOrigin = deps.cors.allowOrigin(req.getHeader('origin'));
    res.cork(() => {
      res.writeStatus(statusLine(204));
      // A preflight from an origin not allowed gets no allow-origin: the browser stops there.
      if (allowOrigin !== '') res.writeHeader('access-control-allow-origin', allowOrigin);
      if (!deps.cors.anyOrigin) res.writeHeader('vary', 'origin');
      res
        .writeHeader('access-control-allow-methods', CORS_METHODS)
        .writeHeader('access-control-allow-headers', CORS_HEADERS)
        .writeHeader('access-control-max-age', '86400')
        .end(undefined, deps.drain.draining);
    });
  });

  app.any('/*', (res, req) => {
    const incoming = readIncoming(req);
    const allowOrigin = deps.cors.anyOrigin ? '*' : deps.cors.allowOrigin(req.getHeader('origin'));
    const state: State = { aborted: false, settled: false, started: performance.now() };
    const settle = () => {
      if (state.settled) return;
      state.settled = true;
      deps.drain.settled();
    };
    deps.drain.received();
    res.onAborted(() => {
      state.aborted = true;
      state.whenAborted?.();
      settle();
    });
    let matched: RouteDef | undefined;
    // HEAD is answered as GET, without the body; so are its refusals.
    const head = incoming.method === 'HEAD';
    const answered = (status: number) => {
      settle();
      const ms = performance.now() - state.started;
      metrics.observe(matched, status, ms);
      if (accessLog) deps.log.info({ reqId: incoming.requestId, method: incoming.method, url: incoming.url, status, ms: Math.round(ms * 10) / 10 }, 'request');
    };
    const respond = (status: number, body: string | Buffer, extra?: [string, string][], close = false) => {
      send(res, state, status, body, incoming.requestId, allowOrigin, extra, close || deps.drain.draining, head);
      answered(status);
    };
    const stream = (streamed: StreamedBody) => {
      if (state.aborted) return void streamed.body.destroy();
      const common: [string, string][] = [
        ['x-request-id', incoming.requestId],
        ['access-control-expose-headers', EXPOSED_HEADERS],
      ];
      if (allowOrigin !== '') common.push(['access-control-allow-origin', allowOrigin]);
      sendStream(
        res,
        streamed,
        common,
        (then) => (state.whenAborted = then),
        () => answered(200),
      );
    };
    const fail = (failure: unknown) => {
      // A statement that met a full disk is answered as every write is while the disk is full.
      const err = (deps.storage.failed(failure) ? deps.storage.refusal() : undefined) ?? failure;
      if (err instanceof DomainError) {
        const status = HTTP_STATUS[err.kind];
        return respond(status, envelope(status, err.message, err.data, err.errors), errorHeaders(err));
      }
      if (isDatabaseUnavailable(err)) {
        deps.log.warn({ reqId: incoming.requestId, err }, 'database unavailable');
        return respond(503, envelope(503, 'The database is unavailable; try again shortly.', null), [['retry-after', UNAVAILABLE_RETRY_AFTER_SECONDS]]);
      }
      deps.log.error({ reqId: incoming.requestId, err }, 'request failed');
      respond(500, envelope(500, 'Internal server error.', null));
    };
    // Read only when a limit needs it: the peer's address is on the response, valid until it ends.
    const address = () => (state.aborted ? '' : deps.limits.address(Buffer.from(res.getRemoteAddressAsText()).toString(), incoming.forwardedFor));

    if (!isMethod(incoming.method)) return respond(400, notAMethod(incoming.method), undefined, true);
    if (incoming.headerBytes > HEADERS_LIMIT) return respond(431, envelope(431, HEADERS_TOO_LARGE, null));
    const method = head ? 'GET' : incoming.method;
    const match = METHODS.has(method) ? router.match(method as Method, incoming.url) : ({ kind: 'none' } as const);
    if (match.kind === 'none') return respond(404, envelope(404, `No endpoint at ${incoming.method} ${incoming.url}.`, null));
    if (match.kind === 'wrong-method') {
      const allowed = match.allowed.includes('GET') ? [...match.allowed, 'HEAD'] : match.allowed;
      return respond(405, methodNotAllowed(incoming.method, allowed), [['allow', allowed.join(', ')]]);
    }
    matched = match.route;
    const run = (body: BodyResult | undefined) => {
      if (body?.kind === 'too-large') return respond(413, envelope(413, `The request body is larger than ${deps.bodyLimit} bytes.`, null));
      if (body?.kind === 'not-utf8') return respond(400, envelope(400, `Invalid body: ${NOT_UTF8}.`, null, { body: NOT_UTF8 }));
      handle(deps, manageToken, match.route, match.params, incoming, address, body?.text ?? '').then((reply) => {
        if (reply.stream !== undefined) return stream(reply.stream);
        const status = reply.status ?? 200;
        const shared = sharedJson(reply);
        if (shared === undefined || status === 204 || shared.json.length < GZIP_FROM_BYTES) {
          const body = replyBody(status, reply);
          if (!incoming.gzip || status === 204 || body.length < GZIP_FROM_BYTES || !compressible(method, reply.data)) return respond(status, body);
          return respond(status, gzippedForOne(body), GZIPPED);
        }
        const around = `${status}\u0000${reply.message ?? ''}\u0000${shared.before}\u0000${shared.after}`;
        respond(
          status,
          answerOnce(shared.json, around, incoming.gzip, () => replyBody(status, reply)),
          incoming.gzip ? GZIPPED : undefined,
        );
      }, fail);
    };
    if (!incoming.hasBody) return run(undefined);
    readBody(res, deps.bodyLimit, run);
  });

  return app;
}

function readIncoming(req: HttpRequest): Incoming {
  const length = req.getHeader('content-length');
  const url = req.getUrl();
  const query = req.getQuery() ?? '';
  const apiToken = req.getHeader('x-api-token');
  const manageToken = req.getHeader('x-manage-token');
  const authorization = req.getHeader('authorization');
  const givenId = req.getHeader('x-request-id');
  return {
    method: req.getCaseSensitiveMethod(),
    url,
    query,
    apiToken,
    manageToken,
    authorization,
    requestId: givenId || `${requestPrefix}-${(++requestCounter).toString(36)}`,
    forwardedFor: req.getHeader('x-forwarded-for'),
    gzip: takesGzip(req.getHeader('accept-encoding')),
    hasBody: (length !== '' && length !== '0') || req.getHeader('transfer-encoding') !== '',
    headerBytes: url.length + query.length + apiToken.length + manageToken.length + authorization.length + givenId.length,
  };
}

async function handle(deps: HttpDeps, manageToken: Buffer, route: RouteDef, rawParams: Record<string, string>, incoming: Incoming, address: () => string, bodyText: string): Promise<Reply> {
  const scope = route.scope ?? 'app';
  let app = undefined as unknown as RequestContext['app'];
  let tokenScope: TokenScope = 'server';
  let actor: Actor | null = null;
  const lockedOut = scope === 'public' ? undefined : deps.limits.lockout(address);
  if (lockedOut !== undefined) throw lockedOut;
  // Before anything reads them, the application's id included.
  const params = decodePathParams(rawParams);
  try {
    if (scope === 'manage') {
      const given = Buffer.from(incoming.manageToken);
      if (given.length !== manageToken.length || !timingSafeEqual(given, manageToken)) throw unauthorized('Request is not authorized with a management token.');
    } else if (scope === 'app') {
      const appId = params['appid'] as string;
      const credential = await authenticateApp(deps.apps, appId, incoming.apiToken);
      app = credential.app;
      tokenScope = credential.scope;
      if (incoming.authorization !== '') actor = await verifyUserToken(app, incoming.authorization);
    }
  } catch (err) {
    // A refused credential counts toward the address's lockout; a request that carried none is no guess.
    if (err instanceof DomainError && err.kind === 'unauthorized' && presentsCredentials(incoming)) throw (await deps.limits.authFailed(address())) ?? err;
    throw err;
  }
  if (tokenScope === 'client') assertClientAccess(route, actor);
  // Before the write budget is drawn on: a refused write costs the writer nothing.
  const refused = writesToDatabase(route) ? deps.storage.refusal() : undefined;
  if (refused !== undefined) throw refused;
  let log: RequestContext['log'] | undefined;
  const ctx: RequestContext = {
    requestId: incoming.requestId,
    get log() {
      return (log ??= deps.log.child({ reqId: incoming.requestId }));
    },
    params,
    body: undefined,
    query: undefined,
    app,
    scope: tokenScope,
    actor,
  };
  // A plain user's budget is known from the credentials alone: a flood past it is refused before its body is parsed.
  const limit = route.limit;
  const countedFirst = limit !== undefined && deps.limits.writerKnownWithoutBody(limit, actor);
  if (countedFirst) await deps.limits.write(limit, ctx);
  ctx.body = route.body === undefined ? undefined : validate(route.body, parseJsonBody(bodyText), 'body');
  ctx.query = route.query === undefined ? undefined : validate(route.query, parseQuery(incoming.query), 'query');
  if (limit !== undefined && !countedFirst) await deps.limits.write(limit, ctx);
  return deps.bus.settledAcrossNodes(() => route.handler(ctx));
}

const presentsCredentials = (incoming: Incoming) => incoming.apiToken !== '' || incoming.manageToken !== '' || incoming.authorization !== '';

const GZIPPED: [string, string][] = [['content-encoding', 'gzip']];

function sharedJson(reply: Reply): SharedJson | undefined {
  const shared = reply.shared;
  return shared === undefined || !Buffer.isBuffer(shared) ? shared : { before: '', json: shared, after: '' };
}

function replyBody(status: number, reply: Reply): string | Buffer {
  if (status === 204) return '';
  const message = reply.message ?? '';
  const shared = sharedJson(reply);
  if (shared !== undefined) return envelopeAroundPieces(status, message, [shared.before, shared.json, shared.after]);
  if (reply.json === undefined) return envelope(status, message, reply.data);
  return typeof reply.json === 'string' ? envelopeAroundJson(status, message, reply.json) : envelopeAroundPieces(status, message, reply.json);
}

function parseJsonBody(text: string): unknown {
  if (text.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw badRequest('Malformed JSON body.', { body: 'is not valid JSON' });
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw badRequest('The JSON body must be an object.', { body: 'must be a JSON object' });
  return normalizeBody(parsed, mayHoldUnstorable(text));
}

/** `close`: the connection is closed after the answer (uWS then sends `Connection: close`). */
function send(
  res: HttpResponse,
  state: State,
  status: number,
  body: string | Buffer,
  requestId: string,
  allowOrigin: string,
  extra: [string, string][] | undefined,
  close: boolean,
  head: boolean,
): void {
  if (state.aborted) return;
  res.cork(() => {
    res.writeStatus(statusLine(status));
    res.writeHeader('content-type', 'application/json; charset=utf-8');
    if (allowOrigin !== '') res.writeHeader('access-control-allow-origin', allowOrigin);
    // Reads and lists go gzipped to clients that take it: a cache on the way keeps the encodings apart.
    res.writeHeader('vary', allowOrigin === '*' ? 'accept-encoding' : 'origin, accept-encoding');
    res.writeHeader('x-request-id', requestId);
    res.writeHeader('access-control-expose-headers', EXPOSED_HEADERS);
    if (extra !== undefined) for (const [name, value] of extra) res.writeHeader(name, value);
    endAnswer(res, body, head, close);
  });
}
