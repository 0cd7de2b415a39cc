import type { Session } from './session.js';

/** A frame the server pushes on a topic (docs/realtime.md). */
export interface TopicFrame {
  type: 'event' | 'error' | 'subscribed';
  topic: string;
  event?: string;
  data?: unknown;
  seq?: number;
  cursor?: string;
  code?: string;
  message?: string;
}

export type LiveStatus = 'connecting' | 'live' | 'offline' | 'refused';
type Handler = (frame: TopicFrame) => void;

interface Watch {
  handlers: Set<Handler>;
  /** Rooms: the cursor of the highest `seq` processed, to resume from after a reconnect. */
  cursor: string | undefined;
  seq: number;
}

/**
 * One WebSocket for the whole console. Authenticates with the first frame (secrets stay out of
 * URLs and access logs), re-subscribes every watched topic after a reconnect, and resumes rooms
 * from their last cursor so no message is missed or repeated.
 */
export class Live {
  status: LiveStatus = 'connecting';
  private socket: WebSocket | undefined;
  private readonly watches = new Map<string, Watch>();
  private readonly statusListeners = new Set<(s: LiveStatus) => void>();
  private retries = 0;
  private closed = false;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly session: Session) {
    this.connect();
  }

  /** Receives the topic's frames until the returned function is called. */
  watch(topic: string, handler: Handler, cursor?: string): () => void {
    let watch = this.watches.get(topic);
    if (watch === undefined) {
      watch = { handlers: new Set(), cursor, seq: 0 };
      this.watches.set(topic, watch);
      if (this.status === 'live') this.subscribe(topic, watch);
    }
    watch.handlers.add(handler);
    return () => {
      const current = this.watches.get(topic);
      if (current === undefined) return;
      current.handlers.delete(handler);
      if (current.handlers.size > 0) return;
      this.watches.delete(topic);
      if (this.status === 'live') this.send({ type: 'unsubscribe', topic });
    };
  }

  onStatus(listener: (s: LiveStatus) => void): () => void {
    this.statusListeners.add(listener);
    return () => this.statusListeners.delete(listener);
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.retryTimer);
    this.socket?.close(1000);
  }

  private connect(): void {
    this.setStatus('connecting');
    const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
    const socket = new WebSocket(`${scheme}://${location.host}/api/v3/${encodeURIComponent(this.session.appid)}/ws`);
    this.socket = socket;
    socket.onopen = () => {
      const auth: Record<string, string> = { type: 'auth', token: this.session.token };
      if (this.session.jwt !== '') auth['jwt'] = this.session.jwt;
      socket.send(JSON.stringify(auth));
    };
    socket.onmessage = (message) => this.receive(JSON.parse(String(message.data)) as TopicFrame | { type: 'ready' | 'pong' | 'unsubscribed' });
    socket.onclose = (closing) => {
      if (this.socket !== socket || this.closed) return;
      if (closing.code === 4001 || closing.code === 4003) return this.setStatus('refused');
      this.setStatus('offline');
      const delay = Math.min(10_000, 500 * 2 ** this.retries) + Math.random() * 500;
      this.retries += 1;
      this.retryTimer = setTimeout(() => this.connect(), delay);
    };
  }

  private receive(frame: TopicFrame | { type: 'ready' | 'pong' | 'unsubscribed' }): void {
    if (frame.type === 'ready') {
      this.retries = 0;
      this.setStatus('live');
      for (const [topic, watch] of this.watches) this.subscribe(topic, watch);
      return;
    }
    if (!('topic' in frame) || frame.topic === undefined) return;
    const watch = this.watches.get(frame.topic);
    if (watch === undefined) return;
    if (frame.type === 'event' && frame.seq !== undefined && frame.cursor !== undefined && frame.seq > watch.seq) {
      watch.seq = frame.seq;
      watch.cursor = frame.cursor;
    }
    for (const handler of watch.handlers) handler(frame);
  }

  private subscribe(topic: string, watch: Watch): void {
    this.send(watch.cursor === undefined ? { type: 'subscribe', topic } : { type: 'subscribe', topic, cursor: watch.cursor });
  }

  private send(frame: object): void {
    if (this.socket?.readyState === WebSocket.OPEN) this.socket.send(JSON.stringify(frame));
  }

  private setStatus(status: LiveStatus): void {
    this.status = status;
    for (const listener of this.statusListeners) listener(status);
  }
}
