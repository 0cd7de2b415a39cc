import { type ChatHandlers, type ChatEvent, dispatchChatEvent } from './chat-handlers.js';
import { onlineDelay, reconnectDelay, watchConnectivity } from './connectivity.js';
import { seqOfCursor, tokenExpired } from './decode.js';
import { CompactStream, type Frame } from './compact-stream.js';
import { RoomOrder } from './room-order.js';
import { caughtUpMeta, updatesAfter } from './updates.js';
import type { EventMeta, LiveConfig, LiveError, LiveEvents, LiveState, SocketConstructor, SocketLike, SubscribeOptions, Subscription } from './types.js';

type Listener = SubscribeOptions;

/** One topic this client follows, shared by every subscription to it. */
interface Followed {
  listeners: Set<Listener>;
  /** Topics with a feed position: rooms, and any whose `subscribed` frame carries a cursor. */
  order: RoomOrder | undefined;
  /** `catchup` while REST pages are read; nothing is sent for it meanwhile. */
  status: 'idle' | 'pending' | 'catchup';
  /** The cursor the pending subscribe carried. */
  sentCursor: string | undefined;
}

const OPEN = 1;
const missing = (what: string): never => {
  throw new Error(`LiveClient needs ${what}`);
};
/** 1013 (database unreachable) and 4029 (rate limited) without a stated wait: at least this long. */
const LATER_MS = 5_000;
const RATE_LIMITED_MS = 30_000;

/** Runs an app handler: its failure must not stop the stream; it still reaches the host's error reporting. */
function handOver(handler: () => void): void {
  try {
    handler();
  } catch (err) {
    setTimeout(() => {
      throw err;
    });
  }
}

/**
 * One WebSocket to engage-server for any number of topics: authenticates, re-subscribes after
 * every reconnect, resumes rooms from their cursor (through REST `updates` pages when further
 * behind than the server replays), and hands each room's events over once, in seq order.
 */
export class LiveClient {
  state: LiveState = 'idle';
  private readonly config: LiveConfig;
  private readonly Socket: SocketConstructor;
  private readonly endpoints: string[];
  private readonly topics = new Map<string, Followed>();
  /** Presence heartbeats and their timers. */
  private readonly beats = new Map<() => void, ReturnType<typeof setInterval>>();
  private readonly listeners = new Map<keyof LiveEvents, Set<(event: never) => void>>();
  private socket: SocketLike | undefined;
  private ready = false;
  private attempt = 0;
  /** When the connection was lost (Date.now()); undefined while connected. */
  private downSince: number | undefined;
  private endpointIndex = 0;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private pingTimer: ReturnType<typeof setInterval> | undefined;
  private pongTimer: ReturnType<typeof setTimeout> | undefined;
  private retryAfterMs: number | undefined;
  private refreshedToken = false;
  private offline = false;
  /** Lost and to be tried again (a retry is timed, or waits for the network to come back). */
  private awaitingRetry = false;
  private closed = false;
  private readonly stopWatching: () => void;
  /** Compact frames' state: the dictionary (kept across sockets), each topic's number and objects (per socket). */
  private readonly compact = new CompactStream();
  /** Frames wait here, in order, while a deflated one before them is inflated. */
  private inbox: unknown[] | undefined;

  constructor(config: LiveConfig) {
    this.config = { ...config };
    const endpoint = config.endpoint;
    this.endpoints = (Array.isArray(endpoint) ? endpoint : [endpoint ?? '']).map((e) => e.replace(/\/+$/, ''));
    if (!config.appId || !config.apiToken || this.endpoints.some((e) => !/^https?:\/\//.test(e))) missing('appId, apiToken and endpoint (the http(s)://…/api/v3 base)');
    this.Socket = config.WebSocket ?? (globalThis as { WebSocket?: SocketConstructor }).WebSocket ?? missing('a WebSocket: pass one as config.WebSocket (e.g. from the ws package)');
    this.stopWatching = watchConnectivity({
      offline: () => {
        this.offline = true;
        this.drop(1006, 'offline');
      },
      online: () => {
        this.offline = false;
        this.retrySoon(onlineDelay(this.config));
      },
      visible: () => this.retrySoon(0),
    });
  }

  /** Listens to connection state; returns the function that stops listening. */
  on<K extends keyof LiveEvents>(type: K, listener: (event: LiveEvents[K]) => void): () => void {
    const set = this.listeners.get(type) ?? new Set();
    this.listeners.set(type, set.add(listener));
    return () => set.delete(listener);
  }

  /**
   * Follows a topic (`room:`, `conversation:`, `poll:`, `context:`, `user:`). A second
   * subscription to a topic already followed shares its stream from now on (its cursor is unused).
   */
  subscribe<T = unknown>(topic: string, options: SubscribeOptions<T>): Subscription {
    const listener = options as Listener;
    let followed = this.topics.get(topic);
    if (followed === undefined) {
      followed = { listeners: new Set(), order: undefined, status: 'idle', sentCursor: undefined };
      if (topic.startsWith('room:')) this.orderOf(topic, followed).reset(options.cursor, seqOfCursor(options.cursor));
      this.topics.set(topic, followed);
      if (this.ready) this.follow(topic, followed);
      else if (this.socket === undefined && this.state !== 'disconnected') void this.open();
    }
    followed.listeners.add(listener);
    const f = followed;
    return {
      topic,
      get cursor() {
        return f.order?.cursor;
      },
      unsubscribe: () => this.unsubscribe(topic, listener),
    };
  }

  /** A room's events routed to the hosted SDK's handlers (`EventHandlerConfig`), as its poller routes them. */
  room(roomId: string, handlers: ChatHandlers, options: { cursor?: string } = {}): Subscription {
    handlers.onChatStart?.();
    const userid = this.config.user?.userid;
    return this.subscribe<ChatEvent>(`room:${roomId}`, {
      cursor: options.cursor,
      onEvent: (event) => dispatchChatEvent(handlers, event, userid),
      onError: (error) => handlers.onNetworkError?.(error),
    });
  }

  /**
   * Counts this user present in a telemetry context (`key`, e.g. 'viewers') while connected: a
   * heartbeat now, after every reconnect and every `everyMs` (keep it under the server's presence
   * window, 30 s by default). With a client token it needs a user token. Returns the function that stops it.
   */
  presence(contextid: string, key: string, everyMs = 10_000): () => void {
    const beat = () => this.send({ type: 'heartbeat', contextid, key });
    this.beats.set(beat, setInterval(beat, everyMs));
    if (this.ready) beat();
    else this.connect();
    return () => {
      clearInterval(this.beats.get(beat));
      this.beats.delete(beat);
    };
  }

  /** Stops for good: closes the socket and forgets every topic. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.stopWatching();
    clearTimeout(this.retryTimer);
    for (const followed of this.topics.values()) followed.order?.forget();
    this.topics.clear();
    for (const timer of this.beats.values()) clearInterval(timer);
    this.beats.clear();
    this.drop(1000, 'closed by the app');
  }

  private emit<K extends keyof LiveEvents>(type: K, event: LiveEvents[K]): void {
    for (const listener of this.listeners.get(type) ?? []) (listener as (event: LiveEvents[K]) => void)(event);
  }

  /** Connects now (subscribe does it by itself); after the client stopped (4001, 4003), tries again, e.g. with new credentials. */
  connect(): void {
    if (this.socket !== undefined || this.state === 'connecting') return;
    clearTimeout(this.retryTimer);
    this.refreshedToken = false;
    void this.open();
  }

  private async open(): Promise<void> {
    if (this.closed || this.offline || this.socket !== undefined) return;
    this.awaitingRetry = false;
    const endpoint = this.endpoints[this.endpointIndex % this.endpoints.length] as string;
    this.state = 'connecting';
    this.emit('connecting', { endpoint, attempt: this.attempt });
    const token = this.config.userToken;
    // An expired user token would be refused, and refusals count toward the address's lockout.
    if (token && tokenExpired(token, 5_000) && !(await this.refreshUserToken())) return this.stopped(4003, 'user token expired');
    if (this.closed || this.offline || this.socket !== undefined) return;
    const socket = new this.Socket(`${endpoint.replace(/^http/, 'ws')}/${encodeURIComponent(this.config.appId as string)}/ws${this.encodingQuery()}`);
    this.socket = socket;
    this.compact.reset();
    this.inbox = undefined;
    if ('binaryType' in socket) (socket as { binaryType: string }).binaryType = 'arraybuffer';
    socket.onopen = () => {
      const auth: Record<string, string> = { type: 'auth', token: this.config.apiToken as string };
      if (this.config.userToken) auth['jwt'] = this.config.userToken;
      socket.send(JSON.stringify(auth));
    };
    socket.onmessage = (message) => {
      this.heard();
      this.take(message.data, socket);
    };
    socket.onclose = (closing) => this.lost(closing.code, closing.reason);
    socket.onerror = () => {};
    this.armPong();
  }

  /** `?encoding=compact` (unless config.compact is false), with deflated batches where the runtime inflates them, and the dictionary held. */
  private encodingQuery(): string {
    if (this.config.compact === false) return '';
    const held = this.compact.dictionaryId;
    return `?encoding=compact${typeof DecompressionStream === 'function' ? '&compress=deflate-raw' : ''}${held === undefined ? '' : `&dictionary=${encodeURIComponent(held)}`}`;
  }

  /** A message of the socket, in order: a binary one (a deflated batch) is inflated first, and those after it wait. */
  private take(data: unknown, socket: SocketLike): void {
    if (this.inbox !== undefined) {
      this.inbox.push(data);
      return;
    }
    if (typeof data === 'string') return this.read(data);
    this.inbox = [];
    inflate(data).then(
      (text) => {
        if (this.socket !== socket) return;
        const waiting = this.inbox ?? [];
        this.inbox = undefined;
        this.read(text);
        for (const next of waiting) this.take(next, socket);
      },
      (err: unknown) => {
        if (this.socket === socket) this.drop(1006, `a frame could not be inflated: ${String(err)}`);
      },
    );
  }

  private read(text: string): void {
    for (const frame of this.compact.frames(JSON.parse(text))) this.receive(frame);
  }

  private receive(frame: Frame): void {
    const followed = frame.topic === undefined ? undefined : this.topics.get(frame.topic);
    switch (frame.type) {
      case 'ready':
        this.ready = true;
        this.attempt = 0;
        this.downSince = undefined;
        this.refreshedToken = false;
        this.state = 'connected';
        this.emit('connected', { userid: frame.userid ?? null });
        this.startPings();
        for (const [topic, f] of this.topics) this.follow(topic, f);
        for (const beat of this.beats.keys()) beat();
        return;
      case 'subscribed':
        if (followed === undefined) return;
        if (frame.cursor !== undefined) this.orderOf(frame.topic as string, followed).adopt(frame.cursor, frame.seq);
        for (const listener of followed.listeners) handOver(() => listener.onSubscribed?.({ topic: frame.topic as string, cursor: followed.order?.cursor }));
        return;
      case 'event':
        if (followed === undefined || followed.status === 'catchup') return;
        if (followed.order !== undefined) followed.order.push(frame.data, this.meta(frame), frame.prev);
        else this.deliver(frame.topic as string, frame.data, this.meta(frame));
        return;
      case 'error':
        if (frame.code === 'rate_limited') this.retryAfterMs = Number(/retry after (\d+)/i.exec(frame.message ?? '')?.[1] ?? 0) * 1000 || undefined;
        if (followed !== undefined) this.refused(frame.topic as string, followed, { code: frame.code ?? 'internal', message: frame.message ?? '', topic: frame.topic });
        else this.emit('error', { code: frame.code ?? 'internal', message: frame.message ?? '' });
        return;
    }
  }

  private orderOf(topic: string, followed: Followed): RoomOrder {
    followed.order ??= new RoomOrder(
      (data, meta) => this.deliver(topic, data, meta),
      this.config.reorderWindowMs ?? 2_000,
      () => this.stalled(topic),
    );
    return followed.order;
  }

  private meta(frame: Frame): EventMeta {
    const meta: EventMeta = { topic: frame.topic as string, event: frame.event as string };
    if (frame.seq !== undefined) meta.seq = frame.seq;
    if (frame.cursor !== undefined) meta.cursor = frame.cursor;
    return meta;
  }

  private deliver(topic: string, data: unknown, meta: EventMeta): void {
    for (const listener of this.topics.get(topic)?.listeners ?? []) handOver(() => listener.onEvent(data, meta));
  }

  private follow(topic: string, followed: Followed): void {
    if (followed.status === 'catchup') return;
    const cursor = followed.order?.cursor;
    followed.status = 'pending';
    followed.sentCursor = cursor;
    this.send(cursor === undefined ? { type: 'subscribe', topic } : { type: 'subscribe', topic, cursor });
  }

  private unsubscribe(topic: string, listener: Listener): void {
    const followed = this.topics.get(topic);
    if (followed === undefined || !followed.listeners.delete(listener) || followed.listeners.size > 0) return;
    this.topics.delete(topic);
    followed.order?.forget();
    if (this.ready && followed.status === 'pending') this.send({ type: 'unsubscribe', topic });
  }

  /** A subscribe was refused: too far behind → catch up through REST; a passing failure → retry; else the app is told and the topic dropped. */
  private refused(topic: string, followed: Followed, error: LiveError): void {
    if (error.code === 'already_subscribed' || error.code === 'not_subscribed') return;
    const order = followed.order;
    if (error.code === 'bad_request' && order !== undefined && followed.sentCursor !== undefined && topic.startsWith('room:')) {
      void this.catchUp(topic, followed, order);
      return;
    }
    if (error.code === 'internal' || error.code === 'rate_limited') {
      setTimeout(() => this.ready && this.topics.get(topic) === followed && this.follow(topic, followed), this.retryAfterMs ?? LATER_MS);
      return;
    }
    this.topics.delete(topic);
    order?.forget();
    for (const listener of followed.listeners) listener.onError?.(error);
    this.emit('error', error);
  }

  /** A hole in a room stayed open: the room is read through REST from the last event handed over, then followed again from there. */
  private stalled(topic: string): void {
    const followed = this.topics.get(topic);
    if (followed?.order === undefined || followed.status === 'catchup') return;
    followed.order.forget();
    if (this.ready && followed.status === 'pending') this.send({ type: 'unsubscribe', topic });
    void this.catchUp(topic, followed, followed.order);
  }

  /** Reads the room's `updates` pages from its cursor until the end, then subscribes again from where they stop. */
  private async catchUp(topic: string, followed: Followed, order: RoomOrder): Promise<void> {
    followed.status = 'catchup';
    const roomId = topic.slice('room:'.length);
    try {
      for (let more = true; more && this.topics.get(topic) === followed; ) {
        const endpoint = this.endpoints[this.endpointIndex % this.endpoints.length] as string;
        const page = await updatesAfter(`${endpoint}/${encodeURIComponent(this.config.appId as string)}`, this.config.apiToken as string, roomId, order.cursor ?? '');
        if (this.topics.get(topic) !== followed) return;
        page.events.forEach((event, i) => order.caughtUp(event, caughtUpMeta(topic, page, i)));
        // The page may end past its last event (events this client does not see).
        order.reset(page.cursor, seqOfCursor(page.cursor));
        more = page.more;
      }
    } catch (err) {
      const error: LiveError = (err as LiveError).code === undefined ? { code: 'network', message: String(err), topic } : { ...(err as LiveError), topic };
      for (const listener of followed.listeners) listener.onError?.(error);
      this.emit('error', error);
      // A cursor the server does not know cannot be resumed: the room is followed from now on.
      if (error.code === 'bad_request') order.reset(undefined, undefined);
      else await new Promise((r) => setTimeout(r, this.backoff()));
    }
    followed.status = 'idle';
    if (this.ready && this.topics.get(topic) === followed) this.follow(topic, followed);
  }

  private send(frame: object): void {
    if (this.socket?.readyState === OPEN) this.socket.send(JSON.stringify(frame));
  }

  private startPings(): void {
    clearInterval(this.pingTimer);
    this.pingTimer = setInterval(() => {
      this.send({ type: 'ping' });
      this.armPong();
    }, this.config.pingIntervalMs ?? 25_000);
  }

  /** Anything heard from the server proves the socket alive; silence past the timeout replaces it. */
  private armPong(): void {
    if (this.pongTimer !== undefined) return;
    this.pongTimer = setTimeout(() => this.drop(1006, 'no answer from the server'), this.config.pongTimeoutMs ?? 10_000);
  }

  private heard(): void {
    clearTimeout(this.pongTimer);
    this.pongTimer = undefined;
  }

  /** Lets go of the socket at once (a dead connection may take minutes to report its close) and treats it as lost. */
  private drop(code: number, reason: string): void {
    const socket = this.socket;
    if (socket === undefined) {
      clearTimeout(this.retryTimer);
      if (this.closed) this.stopped(code, reason);
      return;
    }
    socket.onclose = socket.onmessage = socket.onopen = null;
    const s = socket as SocketLike & { terminate?: () => void };
    if (s.terminate) s.terminate();
    else socket.close(code === 1000 ? 1000 : 4000, reason);
    this.lost(code, reason);
  }

  private lost(code: number, reason: string): void {
    this.socket = undefined;
    this.downSince ??= Date.now();
    this.ready = false;
    clearInterval(this.pingTimer);
    this.heard();
    for (const followed of this.topics.values()) {
      if (followed.status === 'pending') followed.status = 'idle';
      followed.order?.forget();
    }
    if (this.closed) return this.stopped(code, reason);
    void this.retry(code, reason);
  }

  private async retry(code: number, reason: string): Promise<void> {
    let delayMs = this.backoff();
    this.attempt++;
    this.endpointIndex++;
    if (code === 4003 && /user token/.test(reason) && !this.refreshedToken) {
      this.refreshedToken = true;
      this.endpointIndex--;
      delayMs = (await this.refreshUserToken()) ? 0 : -1;
    } else if (code === 4001 || code === 4003) delayMs = -1;
    else if (code === 4029) delayMs = Math.max(delayMs, this.retryAfterMs ?? RATE_LIMITED_MS);
    else if (code === 1001) delayMs = Number(/reconnect in (\d+) ms/.exec(reason)?.[1] ?? delayMs);
    else if (code === 1013) delayMs = Math.max(delayMs, LATER_MS);
    this.retryAfterMs = undefined;
    if (delayMs < 0 || this.closed) return this.stopped(code, reason);
    this.state = 'disconnected';
    this.emit('disconnected', { code, reason, willRetry: true, delayMs });
    this.awaitingRetry = true;
    if (this.offline) return;
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => this.open(), delayMs);
  }

  /** A client waiting to reconnect tries after `delayMs` instead (the network or the page is back). */
  private retrySoon(delayMs: number): void {
    if (!this.awaitingRetry || this.offline || this.closed) return;
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => this.open(), delayMs);
  }

  private backoff(): number {
    return reconnectDelay(this.config, this.downSince === undefined ? 0 : Date.now() - this.downSince);
  }

  /** True once the app's userTokenRefreshFunction gave a new user token; false (and the client stopped) otherwise. */
  private async refreshUserToken(): Promise<boolean> {
    const refresh = this.config.userTokenRefreshFunction;
    if (refresh !== undefined) {
      try {
        this.config.userToken = await refresh(this.config.userToken ?? '');
        return true;
      } catch (err) {
        this.emit('error', { code: 'token_refresh_failed', message: String(err) });
      }
    }
    return false;
  }

  /** Nothing more will be tried: the app is told why. */
  private stopped(code: number, reason: string): void {
    this.state = this.closed ? 'closed' : 'disconnected';
    this.emit('disconnected', { code, reason, willRetry: false });
  }
}

/** A deflated batch (raw DEFLATE, as the server sends it to a client that asked for `compress=deflate-raw`). */
async function inflate(data: unknown): Promise<string> {
  const bytes = data instanceof ArrayBuffer ? data : (data as Uint8Array<ArrayBuffer>);
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('deflate-raw'));
  return new Response(stream).text();
}
