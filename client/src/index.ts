export { LiveClient } from './live-client.js';
export { pushChatUpdates, type ChatClientLike, type PushOptions } from './push-chat.js';
export { dispatchChatEvent, type ChatEvent, type ChatHandlers } from './chat-handlers.js';
export type { EventMeta, LiveConfig, LiveError, LiveEvents, LiveState, SocketConstructor, SocketLike, SubscribeOptions, Subscription } from './types.js';
