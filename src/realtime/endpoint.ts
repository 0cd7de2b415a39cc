import type { HttpRequest, HttpResponse, TemplatedApp, us_socket_context_t } from 'uWebSockets.js';
import type { AppDirectory } from '../apps/directory.js';
import type { Config } from '../config.js';
import { isDatabaseUnavailable } from '../db/errors.js';
import { verifyUserToken } from '../http/auth.js';
import type { CorsPolicy } from '../http/cors.js';
import { isMethod, refuseNotAMethod } from '../http/request-line.js';
import type { Limits } from '../limits/limits.js';
import type { FrameBudget } from '../limits/frame-budget.js';
import type { Logger } from '../logger.js';
import { wsMetrics } from '../metrics/registry.js';
import type { ClientFrames, FrameHandler } from './client-frames.js';
import type { Backpressure } from './backpressure.js';
import type { LiveHub } from './hub.js';
import { closeSocket, newConnection, sendError, sendFrame, type Connection, type Socket } from './connection.js';
import { AUTH_TIMEOUT_MS, CLOSE, goingAwayReason, HARD_FRAME_BYTES, MAX_FRAME_BYTES, type ProtocolFrame, reconnectDelayMs } from './protocol.js';
import { refuseConnection } from './admission.js';
import { refusalOf } from './refusal.js';
import type { Subscriptions } from './subscriptions.js';
import type { Dictionary, Shapes } from './compact/shapes.js';

export const WS_PATH = '/api/v3/:appid/ws';
/** How soon after frames are sent sockets' unsent bytes are compared with WS_MAX_BACKPRESSURE (those that could be past it: see Backpressure). */
const BACKPRESSURE_CHECK_MS = 100;
const UWS_CAP_HEADROOM_BYTES = 2 * 1024 * 1024;

export interface EndpointDeps {
  config: Config;
  log: Logger;
  apps: AppDirectory;
  cors: CorsPolicy;
  limits: Limits;
  frames: ClientFrames;
  subscriptions: Subscriptions;
  backpressure: Backpressure;
  hub: LiveHub;
  shapes: Shapes;
}

/** The `ready` frame of a compact socket: what it was granted, and the dictionary unless it holds this one. */
function compactReady(ready: string, dictionary: Dictionary, conn: Connection): string {
  const held = conn.dictionary === dictionary.id;
  return `${ready.slice(0, -1)},"encoding":"compact"${conn.deflate ? ',"compress":"deflate-raw"' : ''},"dictionary":${held ? JSON.stringify(dictionary.id) : dictionary.json}}`;
}

/** `/api/v3/{appid}/ws`: authentication, frame dispatch and the socket limits. */
export class Endpoint {
  private readonly sockets = new Set<Socket>();
  private readonly backpressure: Backpressure;

  constructor(private readonly deps: EndpointDeps) {
    this.backpressure = deps.backpressure;
    deps.apps.onRevoked((tokenId) => this.closeSocketsOfTokens((id) => id === tokenId));
    deps.apps.onRevocationsMissed(() => {
      this.closeRevokedSockets().catch((err: unknown) => deps.log.warn({ err }, 'checking open sockets for revoked tokens failed'));
    });
    this.backpressure.sweepAfterSends(() => this.closeSlowConsumers(), BACKPRESSURE_CHECK_MS);
    deps.hub.onEnded((appId, end) => {
      for (const ws of this.sockets) deps.subscriptions.ended(ws, appId, end);
    });
  }

  /** After a bus outage: sockets whose API token no longer exists are closed as a revocation would have. */
  private async closeRevokedSockets(): Promise<void> {
    const inUse = new Set<string>();
    for (const ws of this.sockets) {
      const tokenId = ws.getUserData().tokenId;
      if (tokenId !== undefined) inUse.add(tokenId);
    }
    if (inUse.size === 0) return;
    const existing = await this.deps.apps.existingTokenIds([...inUse]);
    this.closeSocketsOfTokens((id) => !existing.has(id));
  }

  private closeSocketsOfTokens(revoked: (tokenId: string) => boolean): void {
    for (const ws of this.sockets) {
      const tokenId = ws.getUserData().tokenId;
      if (tokenId !== undefined && revoked(tokenId)) closeSocket(ws, CLOSE.authRefused, 'api token revoked');
    }
  }

  attach(app: TemplatedApp): void {
    app.ws<Connection>(WS_PATH, {
      maxPayloadLength: HARD_FRAME_BYTES,
      idleTimeout: this.deps.config.wsIdleTimeoutSeconds,
      sendPingsAutomatically: true,
      // Published frames bypass sendFrame: the sweeper closes sockets beyond the limit with 4008.
      // uWS's own cap sits well above it (a burst between two sweeps must not reach it: past the
      // cap uWS drops frames, the close frame included, and the client sees only a reset).
      maxBackpressure: 4 * this.backpressure.limit + UWS_CAP_HEADROOM_BYTES,
      closeOnBackpressureLimit: false,
      upgrade: (res, req, context) => this.upgrade(res, req, context),
      open: (ws) => this.open(ws),
      message: (ws, message, isBinary) => {
        const conn = ws.getUserData();
        wsMetrics.framesIn.inc();
        if (message.byteLength > MAX_FRAME_BYTES) return closeSocket(ws, CLOSE.tooBig, `frames are limited to ${MAX_FRAME_BYTES} bytes`);
        if (conn.frames !== undefined && this.overBudget(ws, conn.frames)) return;
        const text = isBinary ? undefined : Buffer.from(message).toString('utf8');
        conn.queue = conn.queue.then(() => this.handle(ws, text)).catch((err: unknown) => this.deps.log.error({ err }, 'websocket frame failed'));
      },
      // Called from inside app.publish: closing there changes the topic tree uWS is iterating
      // and crashes the process (seen as a segfault), so the close waits for the next turn.
      dropped: (ws) => {
        const conn = ws.getUserData();
        setImmediate(() => {
          if (!conn.closed) closeSocket(ws, CLOSE.slowConsumer, 'slow consumer');
        });
      },
      close: (ws) => {
        const conn = ws.getUserData();
        conn.release();
        conn.closed = true;
        clearTimeout(conn.authTimer);
        this.deps.subscriptions.closed(ws);
        this.sockets.delete(ws);
        this.backpressure.forget(ws);
        wsMetrics.connections.dec();
      },
    });
  }

  /** Closes every socket with 1001 (server shutting down), each told when to reconnect. */
  close(): void {
    this.backpressure.stopSweeping();
    for (const ws of [...this.sockets]) closeSocket(ws, CLOSE.goingAway, goingAwayReason(reconnectDelayMs()));
  }

  private closeSlowConsumers(): void {
    this.backpressure.sweep(this.sockets, (ws) => closeSocket(ws, CLOSE.slowConsumer, 'slow consumer'));
  }

  /**
   * Past a connection cap an upgrade is refused at once, in the envelope, before it holds a
   * socket; the admission holds the place from here to the socket's close. The upgrade is made
   * here, inside uWS's handler, never after an await: the uWebSockets.js we run (20.0.8) closes a
   * socket upgraded later (res.cork(() => res.upgrade(...))) right after its open, at random
   * (its cork reads the response's connection-close flag from memory the WebSocket no longer
   * owns; fixed upstream in uWebSockets#1929). An application that does not exist is found at
   * authentication: its token is not the application's (4003); without a token, right after the open.
   */
  private upgrade(res: HttpResponse, req: HttpRequest, context: us_socket_context_t): void {
    const method = req.getCaseSensitiveMethod();
    if (!isMethod(method)) return refuseNotAMethod(res, method);
    const { limits } = this.deps;
    const address = limits.address(Buffer.from(res.getRemoteAddressAsText()).toString(), req.getHeader('x-forwarded-for'));
    const admission = limits.connections.admit(address);
    if (!admission.admitted) {
      (admission.status === 503 ? wsMetrics.refusedFull : wsMetrics.refusedAddress).inc();
      return refuseConnection(res, admission);
    }
    const bearer = /^Bearer\s+(\S+)$/i.exec(req.getHeader('authorization'))?.[1];
    const token = req.getHeader('x-api-token') || (req.getQuery('token') ?? '');
    const jwt = bearer ?? req.getQuery('jwt') ?? '';
    const encoding = { compact: req.getQuery('encoding') === 'compact', deflate: req.getQuery('compress') === 'deflate-raw', dictionary: (req.getQuery('dictionary') ?? '').slice(0, 64) };
    const conn = newConnection(req.getParameter(0) ?? '', address, limits.frameBudget(), token === '' ? undefined : { token, jwt }, req.getHeader('origin'), encoding, admission.release);
    res.upgrade(conn, req.getHeader('sec-websocket-key'), req.getHeader('sec-websocket-protocol'), req.getHeader('sec-websocket-extensions'), context);
  }

  private open(ws: Socket): void {
    this.sockets.add(ws);
    wsMetrics.connections.inc();
    const conn = ws.getUserData();
    const offered = conn.offered;
    if (offered !== undefined) {
      conn.offered = undefined;
      conn.queue = conn.queue.then(() => this.authenticate(ws, offered.token, offered.jwt));
      return;
    }
    conn.authTimer = setTimeout(() => closeSocket(ws, CLOSE.authRequired, 'authentication timed out'), AUTH_TIMEOUT_MS);
    conn.queue = conn.queue.then(() => this.refuseUnknownApp(ws));
  }

  /** A socket that will authenticate by frame, on the path of an application that does not exist: closed at once, as its token would be refused. */
  private async refuseUnknownApp(ws: Socket): Promise<void> {
    const conn = ws.getUserData();
    // A database outage leaves the answer to the auth frame (or the timeout).
    const app = await this.deps.apps.get(conn.appId).catch(() => null);
    if (app !== undefined || conn.closed || conn.app !== undefined) return;
    clearTimeout(conn.authTimer);
    await this.refuseCredentials(ws, 'application not found');
  }

  private async authenticate(ws: Socket, token: string, jwt: string | undefined): Promise<void> {
    const conn = ws.getUserData();
    clearTimeout(conn.authTimer);
    const lockedOut = this.deps.limits.lockout(() => conn.address);
    if (lockedOut !== undefined) return this.refuseRateLimited(ws, lockedOut.message);
    let credential;
    try {
      credential = await this.deps.apps.authenticate(conn.appId, token);
    } catch (err) {
      if (isDatabaseUnavailable(err)) return closeSocket(ws, CLOSE.tryAgainLater, 'database unavailable; try again later');
      this.deps.log.error({ err }, 'websocket authentication failed');
      return closeSocket(ws, CLOSE.internal, 'internal error');
    }
    if (conn.closed) return;
    if (credential === undefined) return this.refuseCredentials(ws, 'api token refused');
    if (credential.scope === 'client' && !this.deps.cors.allowsSocketFrom(conn.origin)) return closeSocket(ws, CLOSE.authRefused, 'origin not allowed for a client token');
    const app = credential.app;
    if (jwt !== undefined && jwt !== '') {
      try {
        conn.actor = await verifyUserToken(app, `Bearer ${jwt}`);
      } catch {
        return this.refuseCredentials(ws, 'user token refused');
      }
      if (conn.closed) return;
    }
    conn.app = app;
    conn.tokenId = credential.id;
    conn.scope = credential.scope;
    const ready = JSON.stringify({ type: 'ready', appid: app.id, userid: conn.actor?.userid ?? null, role: conn.actor?.role ?? null });
    this.send(ws, conn.compact ? compactReady(ready, this.deps.shapes.dictionary(), conn) : ready);
  }

  /** A refused credential counts toward the address's lockout; the one that starts it answers as rate limited. */
  private async refuseCredentials(ws: Socket, reason: string): Promise<void> {
    const lockedOut = await this.deps.limits.authFailed(ws.getUserData().address);
    if (lockedOut !== undefined) return this.refuseRateLimited(ws, lockedOut.message);
    closeSocket(ws, CLOSE.authRefused, reason);
  }

  private refuseRateLimited(ws: Socket, message: string): void {
    sendError(ws, this.backpressure, 'rate_limited', message);
    closeSocket(ws, CLOSE.rateLimited, 'rate limited');
  }

  /**
   * True when the frame is past the socket's budget and is not to be handled: the first such
   * frame is answered `rate_limited` (in turn with the frames before it), later ones are
   * dropped, and a socket that keeps sending is closed with 4029.
   */
  private overBudget(ws: Socket, frames: FrameBudget): boolean {
    const now = Date.now();
    const verdict = frames.take(now);
    if (verdict === 'handle') return false;
    const conn = ws.getUserData();
    if (verdict === 'refuse') {
      const message = `A socket may send at most ${frames.rate.points} frames in ${frames.rate.seconds} s; retry after ${frames.retryAfter(now)} s.`;
      conn.queue = conn.queue.then(() => sendError(ws, this.backpressure, 'rate_limited', message));
    } else if (verdict === 'close') {
      closeSocket(ws, CLOSE.rateLimited, 'rate limited');
    }
    return true;
  }

  private async handle(ws: Socket, text: string | undefined): Promise<void> {
    const conn = ws.getUserData();
    if (conn.closed) return;
    const parsed = text === undefined ? ({ ok: false, message: 'Frames must be text (JSON).' } as const) : this.deps.frames.parse(text);
    if (conn.app === undefined) {
      if (parsed.ok && parsed.handler === undefined && parsed.frame.type === 'auth') return this.authenticate(ws, parsed.frame.token, parsed.frame.jwt);
      return closeSocket(ws, CLOSE.authRequired, 'authenticate first');
    }
    if (!parsed.ok) return sendError(ws, this.backpressure, 'bad_frame', parsed.message);
    if (parsed.handler === undefined) return this.dispatch(ws, parsed.frame);
    await this.areaFrame(ws, parsed.handler, parsed.frame);
  }

  private async dispatch(ws: Socket, frame: ProtocolFrame): Promise<void> {
    switch (frame.type) {
      case 'ping':
        return this.send(ws, '{"type":"pong"}');
      case 'auth':
        return sendError(ws, this.backpressure, 'bad_frame', 'Already authenticated.');
      case 'subscribe':
        return this.deps.subscriptions.subscribe(ws, frame.topic, frame.cursor);
      case 'unsubscribe':
        return this.deps.subscriptions.unsubscribe(ws, frame.topic);
    }
  }

  /** A frame an area registered: its handler's refusals are answered with an error frame. */
  private async areaFrame(ws: Socket, handler: FrameHandler<unknown>, frame: unknown): Promise<void> {
    try {
      await handler(ws.getUserData(), frame);
    } catch (err) {
      const refusal = refusalOf(err);
      if (refusal === undefined) throw err;
      sendError(ws, this.backpressure, refusal.code, refusal.message);
    }
  }

  private send(ws: Socket, frame: string): void {
    sendFrame(ws, frame, this.backpressure);
  }
}
