/** Webhook event names (api-surface.md, Webhooks); a hook stores them prefixed. */
export const WEBHOOK_EVENTS = [
  'chatspeech',
  'chatcustom',
  'chatquote',
  'chatreply',
  'chatreaction',
  'chataction',
  'chatenter',
  'chatexit',
  'chatroomopened',
  'chatroomclosed',
  'chatpurge',
  'commentpublished',
  'commentreply',
  'commentreaction',
] as const;

const KNOWN = new Set<string>(WEBHOOK_EVENTS);
/** Unprefixed chat names (`speech`, `reply`, ...) mean the chat event; `published` means the comment one. */
const UNPREFIXED = new Map<string, string>([...WEBHOOK_EVENTS.filter((e) => e.startsWith('chat')).map((e): [string, string] => [e.slice(4), e]), ['published', 'commentpublished']]);

/** The stored (prefixed) name of an event name as a client may send it, or undefined if unknown. */
export function eventName(name: string): string | undefined {
  const lower = name.toLowerCase();
  return KNOWN.has(lower) ? lower : UNPREFIXED.get(lower);
}

export const WEBHOOK_TYPES = ['prepublish', 'postpublish'] as const;
export const WEBHOOK_ENTITIES = ['chat', 'comment'] as const;
