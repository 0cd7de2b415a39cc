/**
 * How long after a post is answered an app on the hosted SDK sees it: the SDK's own 800 ms poll
 * (ChatClient.startListeningToEventUpdates) against engage-client's pushChatUpdates, both
 * ChatClients in the same room of the same server at once, so the two figures share every minute
 * of the machine. Posts one message every GAP_MS, COUNT of them; prints median and p90 of each and
 * their ratio.
 *
 *   npx tsx bench/push-latency.ts                 # embedded default
 *   DATABASE_URL=postgres://… COUNT=60 npx tsx bench/push-latency.ts
 */
import { ChatClient } from 'sportstalk-sdk';
import type { EventResult } from 'sportstalk-sdk/dist/models/ChatModels.js';
import WebSocket from 'ws';
import { pushChatUpdates, type LiveConfig } from '../client/dist/index.js';
import { spawnServer } from '../test/helpers/spawn.js';
import { benchApp } from './lib/app.js';

const COUNT = Number(process.env['COUNT'] ?? 40);
const GAP_MS = Number(process.env['GAP_MS'] ?? 250);

// One speaker posts faster than the per-user chat budget allows.
const server = await spawnServer({ LOG_LEVEL: 'warn', RATE_LIMIT_CHAT: '100000/10s' });
try {
  const app = await benchApp(server.url);
  const config = { appId: app.appid, apiToken: app.token, endpoint: `${server.url}/api/v3` };
  const room = await app.call<{ id: string }>('POST', 'chat/rooms', { name: 'push latency' });
  await app.call('POST', `chat/rooms/${room.id}/join`, { userid: 'speaker' });
  const answered = new Map<string, number>();
  const seen = { poll: new Map<string, number>(), push: new Map<string, number>() };

  const listener = async (kind: keyof typeof seen): Promise<ChatClient> => {
    const chat = ChatClient.init(config);
    // setUser also hands the user to the event service, whose keep-alive touches the room as them.
    chat.setUser(await chat.createOrUpdateUser({ userid: `${kind}-reader`, handle: `${kind}reader` }, true));
    await chat.joinRoom(room.id);
    chat.setEventHandlers({ onChatEvent: (event: EventResult) => seen[kind].set(event.body as string, performance.now()) });
    return chat;
  };
  const polled = await listener('poll');
  const pushed = await listener('push');
  polled.startListeningToEventUpdates();
  const stop = pushChatUpdates(pushed, { WebSocket: WebSocket as unknown as LiveConfig['WebSocket'] });
  await new Promise((r) => setTimeout(r, 1000));

  for (let i = 0; i < COUNT; i++) {
    const body = `latency ${i}`;
    await app.call('POST', `chat/rooms/${room.id}/command`, { userid: 'speaker', command: body });
    answered.set(body, performance.now());
    await new Promise((r) => setTimeout(r, GAP_MS));
  }
  await new Promise((r) => setTimeout(r, 2000));
  polled.stopListeningToEventUpdates();
  stop();

  const stats = (kind: keyof typeof seen) => {
    const delays = [...answered].map(([body, at]) => (seen[kind].get(body) ?? Number.NaN) - at).sort((a, b) => a - b);
    const missing = delays.filter(Number.isNaN).length;
    const pick = (q: number) => delays[Math.min(delays.length - 1, Math.floor(q * delays.length))] as number;
    return { median: pick(0.5), p90: pick(0.9), missing };
  };
  const poll = stats('poll');
  const push = stats('push');
  const ms = (n: number) => `${Math.max(0, n).toFixed(0)} ms`;
  console.log(`${COUNT} posts, one every ${GAP_MS} ms; delay from the post's answer to the handler`);
  console.log(`SDK poll (800 ms):   median ${ms(poll.median)}, p90 ${ms(poll.p90)}, missing ${poll.missing}`);
  console.log(`pushChatUpdates:     median ${ms(push.median)}, p90 ${ms(push.p90)}, missing ${push.missing}`);
  console.log(`push ÷ poll: median ${(Math.max(1, push.median) / poll.median).toFixed(3)}, p90 ${(Math.max(1, push.p90) / poll.p90).toFixed(3)}`);
} finally {
  await server.stop();
}
