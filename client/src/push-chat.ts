import { LiveClient } from './live-client.js';
import type { LiveConfig } from './types.js';

/** What push needs of the hosted SDK's ChatClient (sportstalk-sdk 3.x). */
export interface ChatClientLike {
  getConfig(): LiveConfig;
  getEventService(): {
    getCurrentRoom(): { id?: string } | null;
    handleUpdates(update: { events: unknown[]; cursor?: string }): unknown;
  };
}

export interface PushOptions {
  /** Share a client the app already has (it is not closed on stop); else one is made from the ChatClient's config. */
  live?: LiveClient;
  /** Passed to the client made here (Node 20: the `ws` package's WebSocket). */
  WebSocket?: LiveConfig['WebSocket'];
  /** Resume after this cursor; by default where the SDK's event service stands (the join's eventscursor). */
  cursor?: string;
}

/**
 * The ChatClient's own event handlers fire from push for the room it joined, instead of from its
 * 800 ms poll (do not call startListeningToEventUpdates). Events go through the SDK's
 * `handleUpdates`, one after another, so its cursor, ignore list and smoothing behave as with
 * polling. Returns the function that stops it.
 */
export function pushChatUpdates(chat: ChatClientLike, options: PushOptions = {}): () => void {
  const service = chat.getEventService();
  const roomId = service.getCurrentRoom()?.id;
  if (!roomId) throw new Error('pushChatUpdates: join a room with the ChatClient first');
  const live = options.live ?? new LiveClient({ ...chat.getConfig(), WebSocket: options.WebSocket });
  let queue: Promise<unknown> = Promise.resolve();
  const subscription = live.subscribe(`room:${roomId}`, {
    cursor: options.cursor ?? (service as { lastCursor?: string }).lastCursor,
    onEvent: (event, meta) => {
      queue = queue.then(() => service.handleUpdates(meta.cursor === undefined ? { events: [event] } : { events: [event], cursor: meta.cursor }));
    },
  });
  return () => {
    subscription.unsubscribe();
    if (options.live === undefined) live.close();
  };
}
