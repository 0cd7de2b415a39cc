import type { LiveConfig } from './types.js';

type Target = { addEventListener?(type: string, fn: () => void): void; removeEventListener?(type: string, fn: () => void): void };

export interface ConnectivityHandlers {
  offline(): void;
  online(): void;
  /** The page is looked at again. */
  visible(): void;
}

/** The browser's word that the network went or came back, or that the page is visible again (nothing in Node); returns the function that stops listening. */
export function watchConnectivity(handlers: ConnectivityHandlers): () => void {
  const g = globalThis as Target & { document?: Target & { visibilityState?: string } };
  const onVisibility = () => g.document?.visibilityState === 'visible' && handlers.visible();
  const offline = () => handlers.offline();
  const online = () => handlers.online();
  g.addEventListener?.('offline', offline);
  g.addEventListener?.('online', online);
  g.document?.addEventListener?.('visibilitychange', onVisibility);
  return () => {
    g.removeEventListener?.('offline', offline);
    g.removeEventListener?.('online', online);
    g.document?.removeEventListener?.('visibilitychange', onVisibility);
  };
}

/**
 * How long to wait before the next reconnect: full jitter (anywhere from 0) under a ceiling that
 * grows with the outage: an eighth of it, at least twice reconnectDelayMs, at most
 * maxReconnectDelayMs. A crowd cut off at once does not come back at once, a cut of up to 8 s
 * (by default) is followed within a second, a long outage is not hammered.
 */
export function reconnectDelay(config: LiveConfig, outageMs: number): number {
  const ceiling = Math.min(config.maxReconnectDelayMs ?? 30_000, Math.max(2 * (config.reconnectDelayMs ?? 500), outageMs / 8));
  return Math.round(Math.random() * ceiling);
}

/** After the browser's `online`: a crowd that hears it together comes back spread over up to a second. */
export const onlineDelay = (config: LiveConfig): number => Math.random() * Math.min(1_000, config.reconnectDelayMs ?? 500);
