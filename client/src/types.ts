/** The socket the client needs: the browser's WebSocket, React Native's, or `ws` in Node. */
export interface SocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: ((event: unknown) => void) | null;
  onmessage: ((event: { data: unknown }) => void) | null;
  onclose: ((event: { code: number; reason: string }) => void) | null;
  onerror: ((event: unknown) => void) | null;
}
export type SocketConstructor = new (url: string) => SocketLike;

/**
 * The hosted SDK's own config fields (one object serves both), plus what only push needs.
 * `endpoint` is the `…/api/v3` base; several are tried in turn when a node cannot be reached.
 */
export interface LiveConfig {
  appId?: string;
  apiToken?: string;
  endpoint?: string | string[];
  userToken?: string;
  userTokenRefreshFunction?: (token: string) => Promise<string>;
  /** The SDK's current user: its shadow-banned events still reach it in `room()` handlers. */
  user?: { userid?: string };
  /** Required where there is no global WebSocket (Node 20): e.g. `WebSocket` of the `ws` package. */
  WebSocket?: SocketConstructor;
  /** How often a ping is sent (default 25 s; the server drops a silent socket after 120 s). */
  pingIntervalMs?: number;
  /** A socket that answers nothing this long after a ping is replaced (default 10 s). */
  pongTimeoutMs?: number;
  /**
   * Reconnects wait a random time (full jitter) below a ceiling: twice reconnectDelayMs, or an
   * eighth of the outage so far once that is more, at most maxReconnectDelayMs (defaults 500 ms,
   * 30 s). The browser's `online` event brings it back within min(reconnectDelayMs, 1 s); the page
   * becoming visible, at once.
   */
  reconnectDelayMs?: number;
  maxReconnectDelayMs?: number;
  /**
   * Compact frames (default true): the server sends each event's fields that are not at their
   * default, authors once per stream, and deflated catch-up batches where the runtime inflates
   * them (DecompressionStream); the client rebuilds the exact REST objects. False: plain frames.
   */
  compact?: boolean;
  /** How long a room event past a hole (a seq neither it nor its `prev` accounts for) waits for the ones before it before the room is read through REST from the last event handed over (default 2 s). */
  reorderWindowMs?: number;
}

export interface EventMeta {
  topic: string;
  /** `chat.event`, `comment.created`, `poll.standings`, `telemetry.snapshot`, `notification`, … */
  event: string;
  /** Rooms: the event's position in the room's feed (also on events caught up through REST). */
  seq?: number;
  /** Rooms: the cursor to resume after this event. */
  cursor?: string;
  /** True when the event came through REST `updates` pages (more than the server's replay horizon behind). */
  catchup?: boolean;
}

export interface LiveError {
  code: string;
  message: string;
  topic?: string;
}

export interface SubscribeOptions<T = unknown> {
  /** Rooms: resume after this cursor (e.g. the join result's `eventscursor.cursor`). */
  cursor?: string;
  onEvent(data: T, meta: EventMeta): void;
  /** The server confirmed the subscription (after every reconnect); rooms: `cursor` is where it stands, so a cut from now on loses nothing. */
  onSubscribed?(info: { topic: string; cursor: string | undefined }): void;
  /** The subscription was refused (forbidden, not_found, …) and is over, or a catch-up failed. */
  onError?(error: LiveError): void;
}

export interface Subscription {
  readonly topic: string;
  /** Rooms: the cursor after the last event delivered. */
  readonly cursor: string | undefined;
  unsubscribe(): void;
}

export type LiveState = 'idle' | 'connecting' | 'connected' | 'disconnected' | 'closed';

export interface LiveEvents {
  connecting: { endpoint: string; attempt: number };
  connected: { userid: string | null };
  /** `willRetry` false: the client stopped (4001, 4003 with no new user token, close()); the app must act. */
  disconnected: { code: number; reason: string; willRetry: boolean; delayMs?: number };
  error: LiveError;
}
