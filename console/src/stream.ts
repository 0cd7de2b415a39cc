import type { ChatEvent } from './types.js';

/** Events that are a message of their own; the others (reaction, replace, remove, purge) change earlier ones. */
const MESSAGE_TYPES = new Set(['speech', 'announcement', 'quote', 'reply', 'custom', 'action', 'ad', 'enter', 'exit', 'bounce']);
/** The live view keeps the most recent messages only. */
export const KEEP = 300;

/** The stream after one feed event: new messages append, the others update what they target. */
export function applyEvent(messages: ChatEvent[], event: ChatEvent): ChatEvent[] {
  switch (event.eventtype) {
    case 'reaction':
    case 'replace':
      return event.replyto === null ? messages : messages.map((m) => (m.id === event.replyto?.id ? { ...m, ...event.replyto, replyto: m.replyto } : m));
    case 'remove':
      return messages.filter((m) => m.id !== event.replyto?.id);
    case 'purge':
      return messages.filter((m) => m.userid !== event.userid);
    default:
      if (!MESSAGE_TYPES.has(event.eventtype)) return messages;
      // An approved message re-enters the feed under its own id.
      return [...messages.filter((m) => m.id !== event.id), event].slice(-KEEP);
  }
}
