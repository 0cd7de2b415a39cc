import type { Bus } from './realtime/bus.js';
import type { WireBatch } from './telemetry/sync.js';

/**
 * The internal (control) messages nodes send each other over `Bus.broadcast`: every node, this
 * one included (synchronously), receives each of them. Files name a message by its entry here,
 * never by its wire name, and the entry types the payload both ways.
 */
export interface InternalMessage<Payload> {
  /** The wire name (the bus topic); spelled here only, and never `kind:id` like a live topic, so no socket sees it. */
  readonly topic: string;
  /** Never set: carries the payload type. */
  readonly payload?: Payload;
}

const message = <Payload>(topic: string): InternalMessage<Payload> => ({ topic });

export const internal = {
  /** A user row changed or was deleted; the payload is the users cache key (pool and userid). */
  userChanged: message<string>('user-changed'),
  /** A chat room row changed; the payload is the room id. */
  roomChanged: message<string>('chat-room-changed'),
  /** A room's user effects (bounce, mute, shadowban, flag) changed; the payload is the room id. */
  roomEffectsChanged: message<string>('chat-effects-changed'),
  /** A room's events were removed wholesale; every node forgets its ring. The payload is the room id. */
  roomRingReset: message<string>('chat-ring-reset'),
  /** A user left a room: [roomid, userid]. */
  participantLeft: message<[roomId: string, userId: string]>('chat-participant-left'),
  /** Comment conversations changed: their ids, or `['*']` for every conversation of the app. */
  commentsChanged: message<string[]>('comments-changed'),
  /** An API token was revoked; the payload is the token id. */
  tokenRevoked: message<string>('api-token-revoked'),
  /** An app's webhooks changed; the payload is the app id. */
  webhooksChanged: message<string>('webhooks-changed'),
  /** Telemetry operations one node recorded, for every other node to apply. */
  telemetry: message<WireBatch>('telemetry'),
} as const;

export type InternalHandler<Payload> = (appId: string, payload: Payload) => void;

/** Sends to every node; this node's handlers run before it returns. */
export function send<Payload>(bus: Bus, appId: string, kind: InternalMessage<Payload>, payload: NoInfer<Payload>): void {
  bus.broadcast(appId, { topic: kind.topic, payload });
}

/** Runs `handler` for each message of `kind` this node receives; returns the unsubscribe function. */
export function on<Payload>(bus: Bus, kind: InternalMessage<Payload>, handler: InternalHandler<NoInfer<Payload>>): () => void {
  const byTopic = dispatcherOf(bus);
  const handlers = byTopic.get(kind.topic) ?? new Set<InternalHandler<unknown>>();
  byTopic.set(kind.topic, handlers);
  const untyped = handler as InternalHandler<unknown>;
  handlers.add(untyped);
  return () => handlers.delete(untyped);
}

/** One bus listener per bus routes every internal message to its kind's handlers: a map lookup per message, live items included. */
const dispatchers = new WeakMap<Bus, Map<string, Set<InternalHandler<unknown>>>>();

function dispatcherOf(bus: Bus): Map<string, Set<InternalHandler<unknown>>> {
  const known = dispatchers.get(bus);
  if (known !== undefined) return known;
  const byTopic = new Map<string, Set<InternalHandler<unknown>>>();
  dispatchers.set(bus, byTopic);
  bus.onMessage((appId, message) => {
    const handlers = byTopic.get(message.topic);
    if (handlers === undefined) return;
    let failure: unknown;
    for (const handler of handlers) {
      try {
        handler(appId, message.payload);
      } catch (err) {
        failure ??= err;
      }
    }
    // One failing handler must not keep the others from their message; the bus logs the failure.
    if (failure !== undefined) throw failure;
  });
  return byTopic;
}
