import type { EventResult } from 'sportstalk-sdk/dist/models/ChatModels.js';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { LiveClient, pushChatUpdates, type LiveConfig } from '../../client/dist/index.js';
import { uid } from '../helpers/api.js';
import { until } from '../client/stream.js';
import { chatAs, sdkApp, type SdkApp } from './helpers.js';

/**
 * Apps on the hosted SDK: its ChatClient's own event handlers fire from push (engage-client's
 * pushChatUpdates), for the room it joined, without its 800 ms poll; and LiveClient.room routes
 * to the same handlers as the SDK's poller would.
 */
const WS = WebSocket as unknown as LiveConfig['WebSocket'];
let sdk: SdkApp;
const stops: (() => void)[] = [];
beforeAll(async () => {
  sdk = await sdkApp();
});
afterEach(() => {
  for (const stop of stops.splice(0)) stop();
});

interface Calls {
  order: string[];
  handlers: Record<string, (event: EventResult) => void>;
}

/** Handlers that record `handler:body` in call order. */
function recording(names: string[]): Calls {
  const calls: Calls = { order: [], handlers: {} };
  for (const name of names) calls.handlers[name] = (event) => calls.order.push(`${name}:${event.body ?? event.eventtype}`);
  return calls;
}

describe('push for the hosted SDK', () => {
  it("pushChatUpdates fires the ChatClient's handlers from push, in order, once each, and keeps its cursor", async () => {
    const alice = await chatAs(sdk);
    const bob = await chatAs(sdk);
    const room = await alice.createRoom({ name: uid('push room') } as never);
    await alice.joinRoom(room.id as string);
    await bob.joinRoom(room.id as string);
    const calls = recording(['onChatEvent', 'onReply', 'onReaction']);
    alice.setEventHandlers(calls.handlers);
    stops.push(pushChatUpdates(alice, { WebSocket: WS }));
    const service = alice.getEventService() as unknown as { _polling?: unknown; lastCursor?: string };
    const before = service.lastCursor;

    const first = await bob.executeChatCommand('first');
    const speech = (first as { data: { speech: EventResult } }).data.speech;
    for (let i = 0; i < 20; i++) await bob.executeChatCommand(`message ${i}`);
    await bob.sendThreadedReply('a reply', speech);
    await bob.reactToEvent('like', speech);
    await until(() => calls.order.length >= 23, 10_000, `23 handler calls (have ${calls.order.length})`);
    await new Promise((r) => setTimeout(r, 300));

    expect(calls.order).toEqual(['onChatEvent:first', ...Array.from({ length: 20 }, (_, i) => `onChatEvent:message ${i}`), 'onReply:a reply', 'onReaction:like']);
    // Pushed, not polled: the SDK's poll timer never started, and its cursor moved with the pushes.
    expect(service._polling).toBeUndefined();
    expect(service.lastCursor).not.toBe(before);
    const polled = await alice.getEventService().getUpdates(service.lastCursor);
    expect((polled as { events: unknown[] }).events).toEqual([]);
  });

  it('LiveClient.room routes events to EventHandlerConfig handlers as the SDK does (a speech to onSpeech rather than onChatEvent, a reaction to onReaction)', async () => {
    const carol = await chatAs(sdk);
    const room = await carol.createRoom({ name: uid('room handlers') } as never);
    await carol.joinRoom(room.id as string);
    const live = new LiveClient({ ...sdk.config, WebSocket: WS });
    stops.push(() => live.close());
    const calls = recording(['onSpeech', 'onChatEvent', 'onReaction']);
    let started = 0;
    live.room(room.id as string, { ...calls.handlers, onChatStart: () => started++ });
    await until(() => live.state === 'connected', 10_000, 'connected');
    await new Promise((r) => setTimeout(r, 300));
    const said = (await carol.executeChatCommand('hello')) as { data: { speech: EventResult } };
    await carol.reactToEvent('like', said.data.speech);
    await until(() => calls.order.length >= 2, 10_000, 'handler calls');
    await new Promise((r) => setTimeout(r, 300));
    expect(started).toBe(1);
    expect(calls.order[0]).toBe('onSpeech:hello');
    expect(calls.order).toEqual(['onSpeech:hello', 'onReaction:like']);
  });
});
