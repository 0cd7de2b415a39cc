import { LiveClient } from '../../client/src/index.js';
import type { Session } from './session.js';

/** What a view's handler gets for its topic: a live event, or the subscription's refusal. */
export interface TopicFrame {
  type: 'event' | 'error';
  topic: string;
  event?: string;
  data?: unknown;
  code?: string;
  message?: string;
}

export type LiveStatus = 'connecting' | 'live' | 'offline' | 'refused';
type Handler = (frame: TopicFrame) => void;

/**
 * The console's live updates: one engage-client for the whole console. It authenticates with the
 * first frame (secrets stay out of URLs and access logs), re-subscribes every topic after a
 * reconnect, resumes rooms from their cursor (through REST when far behind) and hands each room's
 * events over once, in order.
 */
export class Live {
  status: LiveStatus = 'connecting';
  private readonly client: LiveClient;
  private readonly statusListeners = new Set<(s: LiveStatus) => void>();

  constructor(session: Session) {
    this.client = new LiveClient({ appId: session.appid, apiToken: session.token, userToken: session.jwt === '' ? undefined : session.jwt, endpoint: `${location.origin}/api/v3` });
    this.client.on('connecting', () => this.setStatus('connecting'));
    this.client.on('connected', () => this.setStatus('live'));
    this.client.on('disconnected', (e) => this.setStatus(e.willRetry ? 'offline' : 'refused'));
    this.client.connect();
  }

  /** Receives the topic's events (rooms from `cursor` on) until the returned function is called. */
  watch(topic: string, handler: Handler, cursor?: string): () => void {
    const subscription = this.client.subscribe(topic, {
      cursor,
      onEvent: (data, meta) => handler({ type: 'event', topic, event: meta.event, data }),
      onError: (error) => handler({ type: 'error', topic, code: error.code, message: error.message }),
    });
    return () => subscription.unsubscribe();
  }

  onStatus(listener: (s: LiveStatus) => void): () => void {
    this.statusListeners.add(listener);
    return () => this.statusListeners.delete(listener);
  }

  close(): void {
    this.client.close();
  }

  private setStatus(status: LiveStatus): void {
    this.status = status;
    for (const listener of this.statusListeners) listener(status);
  }
}
