/** A chat event as REST and push carry it (the fields dispatch reads). */
export interface ChatEvent {
  id: string;
  eventtype: string;
  customtype?: string | null;
  userid: string;
  shadowban?: boolean;
  [field: string]: unknown;
}

type On = (event: ChatEvent) => void;

/** The hosted SDK's `EventHandlerConfig`: the handlers push calls, as its poller would. */
export interface ChatHandlers {
  onChatStart?: () => void;
  onChatEvent?: On;
  onSpeech?: On;
  onReply?: On;
  onReaction?: On;
  onReplace?: On;
  onRemove?: On;
  onBounce?: On;
  onBanned?: On;
  onPurgeEvent?: On;
  onAnnouncement?: On;
  onNetworkError?: (error: unknown) => void;
  [handler: string]: unknown;
}

/** Routes one event to its handler exactly as the SDK's event service does (RestfulChatEventService._handleUpdate). */
export function dispatchChatEvent(handlers: ChatHandlers, event: ChatEvent, userid: string | undefined): void {
  if (event.shadowban && (event.userid !== userid || !userid)) return;
  const type = event.eventtype;
  if (type === 'speech') {
    if (handlers.onSpeech) return handlers.onSpeech(event);
    if (handlers.onChatEvent) return handlers.onChatEvent(event);
  }
  const specific: [string, On | undefined][] = [
    ['reply', handlers.onReply],
    ['reaction', handlers.onReaction],
    ['replace', handlers.onReplace],
    ['remove', handlers.onRemove],
    ['bounce', handlers.onBounce],
    ['banned', handlers.onBanned],
    ['purge', handlers.onPurgeEvent],
  ];
  for (const [t, on] of specific) if (type === t && on) return on(event);
  if (handlers.onAnnouncement && (type === 'announcement' || event.customtype === 'announcement')) return handlers.onAnnouncement(event);
  handlers.onChatEvent?.(event);
}
