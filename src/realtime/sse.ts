import type { HttpRequest, HttpResponse, TemplatedApp } from 'uWebSockets.js';
import type { AppDirectory } from '../apps/directory.js';
import type { Actor, Application } from '../apps/types.js';
import { isDatabaseUnavailable } from '../db/errors.js';
import { DomainError } from '../errors.js';
import { verifyUserToken } from '../http/auth.js';
import type { CorsPolicy } from '../http/cors.js';
import { envelope } from '../http/envelope.js';
import { HEADERS_LIMIT, HEADERS_TOO_LARGE } from '../http/header-limit.js';
import { parseQuery } from '../http/normalize.js';
import { param } from '../http/route.js';
import { takesGzip } from '../http/encoding.js';
import { getAndHead } from '../http/head.js';
import { sendPlain } from '../http/plain.js';
import { isMethod, refuseMethod, refuseNotAMethod } from '../http/request-line.js';
import { decodePathParams } from '../http/validation.js';
import type { Limits } from '../limits/limits.js';
import type { Logger } from '../logger.js';
import { sseMetrics } from '../metrics/registry.js';
import { refuseConnection } from './admission.js';
import { EventStream } from './event-stream.js';
import { compactBatch, compactItem, dictionaryEvent } from './sse-compact.js';
import type { Shapes } from './compact/shapes.js';
import type { LiveHub } from './hub.js';
import { TOPIC_ENDED, type LiveMessage, type TopicEnd } from './live.js';
import type { Peer } from './peer.js';
import { type ErrorCode, reconnectDelayMs } from './protocol.js';
import { Refusal, refusalOf } from './refusal.js';
import { resumeTopic } from './resume.js';
import type { Topic, TopicRegistry } from './topics.js';

export const SSE_PATH = '/api/v3/:appid/sse';
/** A comment goes out this often on every stream, so that proxies and browsers keep it open. */
export const SSE_COMMENT_MS = 15_000;

const STATUS_OF: Partial<Record<ErrorCode, number>> = { forbidden: 403, not_found: 404, rate_limited: 429, internal: 500 };
const JSON_TYPE = 'application/json; charset=utf-8';

export interface SseDeps {
  log: Logger;
  apps: AppDirectory;
  cors: CorsPolicy;
  limits: Limits;
  hub: LiveHub;
  topics: TopicRegistry;
  maxSubscriptions: number;
  maxUnsent: number;
  shapes: Shapes;
}

/** What the request carried, copied before the first await (uWS requests live only until the handler returns). */
interface Asked {
  /** As the path gave it (percent-encoded). */
  appId: string;
  address: string;
  origin: string;
  /** The headers' credentials and position; the query's, when these are empty, once it is parsed. */
  token: string;
  bearer: string | undefined;
  lastEventId: string;
  query: string;
  /** The client takes gzip: the stream goes gzipped. */
  gzip: boolean;
  /** The size of the request line and the headers read here, held to the REST routes' HEADERS_LIMIT. */
  headerBytes: number;
  head: boolean;
}

/** The query of a stream, parsed as every route's is (parseQuery): one value of a parameter, or all of them. */
const first = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value) ?? '';
const all = (value: string | string[] | undefined) => (value === undefined ? [] : Array.isArray(value) ? value : [value]);

/** One open stream: its peer, the topics it follows and how to stop each. */
interface Open {
  stream: EventStream;
  appId: string;
  tokenId: string;
  /** Rooms' cursors, in the order the URL named them: the `id:` of every event. */
  cursors: Map<string, string>;
  stops: Map<string, () => void>;
  /** Compact data (`?encoding=compact`). */
  compact: boolean;
}

/**
 * `GET /api/v3/{appid}/sse?topic=…&topic=…&token=…&jwt=…`: the WebSocket's topics as server-sent
 * events, authorised by the same topic kinds. Rooms resume from Last-Event-ID (their cursors).
 */
export class SseEndpoint {
  private readonly open = new Set<Open>();
  private readonly commenter: NodeJS.Timeout;

  constructor(private readonly deps: SseDeps) {
    deps.apps.onRevoked((tokenId) => {
      for (const o of this.open) if (o.tokenId === tokenId) o.stream.end(403, '');
    });
    deps.hub.onEnded((appId, end) => {
      for (const o of this.open) if (o.appId === appId && o.stops.has(end.topic)) this.ended(o, end);
    });
    this.commenter = setInterval(() => {
      // A stream still checking its topics must not open for a comment: a refusal would then be no status.
      for (const o of this.open) if (o.stream.started) o.stream.comment('');
    }, SSE_COMMENT_MS);
    this.commenter.unref();
  }

  attach(app: TemplatedApp): void {
    getAndHead(app, SSE_PATH, (res, req, head) => this.request(res, req, head));
    app.any(SSE_PATH, (res, req) => {
      const method = req.getCaseSensitiveMethod();
      // Preflights go on to the REST app's OPTIONS handler.
      if (method.toUpperCase() === 'OPTIONS') return void req.setYield(true);
      refuseMethod(res, method, ['GET', 'HEAD']);
    });
  }

  close(): void {
    clearInterval(this.commenter);
    for (const o of [...this.open]) o.stream.goAway(reconnectDelayMs());
  }

  /** `head`: answered as GET would be, checks and all, with the stream's headers and no body. */
  private request(res: HttpResponse, req: HttpRequest, head: boolean): void {
    const method = req.getCaseSensitiveMethod();
    if (!isMethod(method)) return refuseNotAMethod(res, method);
    const asked = this.read(res, req, head);
    if (asked.headerBytes > HEADERS_LIMIT) return sendPlain(res, 431, JSON_TYPE, envelope(431, HEADERS_TOO_LARGE, null), [], head);
    const allowOrigin = this.deps.cors.allowOrigin(asked.origin);
    const headers: [string, string][] = [
      ['content-type', 'text/event-stream; charset=utf-8'],
      ['cache-control', 'no-cache, no-transform'],
      // Tells nginx-like proxies not to buffer the stream.
      ['x-accel-buffering', 'no'],
    ];
    if (allowOrigin !== '') headers.push(['access-control-allow-origin', allowOrigin]);
    headers.push(['vary', this.deps.cors.anyOrigin ? 'accept-encoding' : 'origin, accept-encoding']);
    // HEAD holds no connection (it ends once checked): it takes no place, and so is never refused with a body.
    const admission = head ? undefined : this.deps.limits.connections.admit(asked.address);
    if (admission !== undefined && !admission.admitted) return refuseConnection(res, admission);
    const stream = new EventStream(res, headers, this.deps.maxUnsent, head, asked.gzip);
    sseMetrics.connections.inc();
    stream.whenEnded(() => {
      admission?.release();
      sseMetrics.connections.dec();
    });
    this.start(stream, asked).catch((err: unknown) => {
      if (isDatabaseUnavailable(err)) return stream.end(503, envelope(503, 'The database is unavailable; try again shortly.', null));
      const refusal = refusalOf(err);
      if (refusal !== undefined) {
        const status = STATUS_OF[refusal.code] ?? 400;
        // A refused field is named as REST names it.
        return stream.end(status, envelope(status, refusal.message, null, err instanceof DomainError ? err.errors : undefined));
      }
      this.deps.log.error({ err }, 'event stream failed');
      stream.end(500, envelope(500, 'Internal server error.', null));
    });
  }

  private read(res: HttpResponse, req: HttpRequest, head: boolean): Asked {
    const authorization = req.getHeader('authorization');
    const forwardedFor = req.getHeader('x-forwarded-for');
    const asked = {
      appId: req.getParameter(0) ?? '',
      address: this.deps.limits.address(Buffer.from(res.getRemoteAddressAsText()).toString(), forwardedFor),
      origin: req.getHeader('origin'),
      token: req.getHeader('x-api-token'),
      bearer: /^Bearer\s+(\S+)$/i.exec(authorization)?.[1],
      lastEventId: req.getHeader('last-event-id'),
      query: req.getQuery() ?? '',
      gzip: takesGzip(req.getHeader('accept-encoding')),
      head,
    };
    const headerBytes = req.getUrl().length + asked.query.length + asked.origin.length + asked.token.length + authorization.length + asked.lastEventId.length + forwardedFor.length;
    return { ...asked, headerBytes };
  }

  /** Authenticates as the WebSocket does, checks every topic, then follows them; any refusal before the stream opens is its HTTP answer. */
  private async start(stream: EventStream, asked: Asked): Promise<void> {
    const { limits, apps, topics } = this.deps;
    const lockedOut = limits.lockout(() => asked.address);
    if (lockedOut !== undefined) throw new Refusal('rate_limited', lockedOut.message);
    // Ids are checked as every route checks them, before any reaches a store.
    const appid = param(decodePathParams({ appid: asked.appId }), 'appid');
    const query = parseQuery(asked.query);
    const token = asked.token || first(query['token']);
    const jwt = asked.bearer ?? first(query['jwt']);
    const named = [...new Set(all(query['topic']))];
    const lastEventId = asked.lastEventId || first(query['lasteventid']);
    const compact = first(query['encoding']) === 'compact';
    const credential = await apps.authenticate(appid, token);
    if (credential === undefined) return this.refuseCredentials(asked, 'The API token is missing or not valid for this application.');
    if (credential.scope === 'client' && !this.deps.cors.allowsSocketFrom(asked.origin)) throw new Refusal('forbidden', 'This origin may not use a client token (CORS_ORIGINS).');
    const app = credential.app;
    let actor: Actor | null = null;
    if (jwt !== '') {
      try {
        actor = await verifyUserToken(app, `Bearer ${jwt}`);
      } catch {
        return this.refuseCredentials(asked, 'The user token is not valid.');
      }
    }
    const peer: Peer = { appId: app.id, actor, scope: credential.scope };
    if (named.length === 0) throw new Refusal('bad_topic', `Name at least one topic: ?topic=${topics.spelled()}.`);
    if (named.length > this.deps.maxSubscriptions) throw new Refusal('too_many_subscriptions', `A stream may follow at most ${this.deps.maxSubscriptions} topics.`);
    const parsed = named.map((name) => {
      const topic = topics.parse(name);
      if (topic === undefined) throw new Refusal('bad_topic', `topic must be ${topics.spelled()}.`);
      topic.def.authorize?.(peer, topic.id);
      return topic;
    });
    const rooms = parsed.filter((t) => t.def.replay !== undefined);
    const resumeFrom = lastEventId === '' ? [] : lastEventId.split(',');
    if (resumeFrom.length > 0 && resumeFrom.length !== rooms.length)
      throw new Refusal('bad_request', `Last-Event-ID holds ${resumeFrom.length} cursors; this stream follows ${rooms.length} resumable topics.`);
    for (const topic of parsed) await topic.def.exists?.(app, topic.id);
    if (asked.head) return stream.headersOnly();
    const o: Open = { stream, appId: app.id, tokenId: credential.id, cursors: new Map(), stops: new Map(), compact };
    if (compact) stream.preface(dictionaryEvent(this.deps.shapes.dictionary(), first(query['dictionary'])));
    this.open.add(o);
    stream.whenEnded(() => this.closed(o));
    try {
      for (const topic of parsed) {
        if (stream.closed) return;
        const at = rooms.indexOf(topic);
        await this.follow(o, app, topic, parsed.indexOf(topic), at < 0 ? undefined : (resumeFrom[at] ?? ''));
      }
    } catch (err) {
      this.closed(o);
      throw err;
    }
    stream.open(o.cursors.size === 0 ? undefined : [...o.cursors.values()].join(','));
  }

  private async refuseCredentials(asked: Asked, message: string): Promise<never> {
    const lockedOut = await this.deps.limits.authFailed(asked.address);
    throw new Refusal(lockedOut === undefined ? 'forbidden' : 'rate_limited', lockedOut?.message ?? message);
  }

  /**
   * A topic with a feed is always resumed, from Last-Event-ID or from its head now, so every event
   * can carry the stream's position. `index`: the topic's place in the URL (a compact item names it).
   */
  private async follow(o: Open, app: Application, topic: Topic, index: number, cursor: string | undefined): Promise<void> {
    const { hub } = this.deps;
    const name = topic.name;
    const writing = o.compact ? hub.writing(app.id, topic) : undefined;
    o.stops.set(name, () => hub.unfollow(app.id, name));
    await hub.follow(app, topic);
    const position = () => (o.cursors.size === 0 ? undefined : [...o.cursors.values()].join(','));
    const send = (message: LiveMessage) => {
      if (message.cursor !== undefined && o.cursors.has(name)) o.cursors.set(name, message.cursor);
      if (writing === undefined) o.stream.event(message, position());
      else o.stream.piece(compactItem(writing, message, index, position()));
    };
    const replayed = (items: readonly LiveMessage[], prev: number | undefined) => {
      const last = items.at(-1)?.cursor;
      if (writing === undefined || last === undefined) return o.stream.batch(() => items.forEach(send));
      o.cursors.set(name, last);
      o.stream.piece(compactBatch(writing, items, prev, index, position() as string));
    };
    const plain = () => {
      const stop = hub.intercept(app.id, name, (d) => send(d.message));
      const unfollow = o.stops.get(name);
      o.stops.set(name, () => {
        stop();
        unfollow?.();
      });
    };
    const replay = topic.def.replay;
    if (replay === undefined || cursor === undefined) plain();
    else {
      const from = cursor === '' ? (await replay(app, topic.id, '', 1, performance.now())).cursor : cursor;
      o.cursors.set(name, from);
      const unfollow = o.stops.get(name);
      let resuming: (() => void) | undefined;
      o.stops.set(name, () => {
        resuming?.();
        unfollow?.();
      });
      await resumeTopic(hub, app, topic, replay, from, {
        active: () => !o.stream.closed,
        confirmed: () => {},
        deliver: (d) => send(d.message),
        deliverAll: (deliveries) => o.stream.batch(() => deliveries.forEach((d) => send(d.message))),
        unsent: () => o.stream.unsentBytes,
        replayed,
        caughtUp: () => {
          o.stops.set(name, () => unfollow?.());
          plain();
        },
        stopWith: (stop) => (resuming = stop),
      });
    }
    if (topic.def.snapshot !== undefined) send(await topic.def.snapshot(app, topic.id));
  }

  /** A topic of the stream ended: the stream ends with it (its URL names it), after a last event that says why; before it opened, with a 404. */
  private ended(o: Open, end: TopicEnd): void {
    if (!o.stream.started) return o.stream.end(404, envelope(404, `${end.topic} ended: ${end.reason}.`, null));
    o.stream.event({ type: TOPIC_ENDED, data: end }, undefined);
    o.stream.end(200, '');
  }

  private closed(o: Open): void {
    if (!this.open.delete(o)) return;
    for (const stop of o.stops.values()) stop();
    o.stops.clear();
  }
}
