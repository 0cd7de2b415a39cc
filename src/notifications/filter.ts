/**
 * The vocabulary of `filterNotificationTypes` (api-surface.md, settled from the SDKs): webhook
 * names (`chatreply`, `commentmention`, ...) name one area's kind, chat event type names
 * (`reply`, `speech`, ...) a kind in any area. A known name of a kind that is never notified
 * (`speech`) matches nothing; an unknown name is refused.
 */

export const NOTIFIED_TYPES = ['reply', 'quote', 'mention', 'reaction'] as const;
type NotifiedType = (typeof NOTIFIED_TYPES)[number];

/** Chat event types (as the SDKs name them) that never produce a notification. */
const SILENT_CHAT_TYPES = [
  'speech',
  'purge',
  'mute',
  'banned',
  'bounce',
  'userrolesupdated',
  'replace',
  'remove',
  'roomclosed',
  'roomopened',
  'action',
  'ad',
  'exit',
  'enter',
  'announcement',
  'custom',
  'goal',
];
const SILENT_COMMENT_TYPES = ['published'];

/** One kind of notification a filter asks for; `entity` null: chat or comment. */
export interface NotificationKind {
  entity: 'chat' | 'comment' | null;
  type: NotifiedType;
}

/** Each known name to the kind it matches, or null when it matches nothing. */
const VOCABULARY = new Map<string, NotificationKind | null>();
for (const type of NOTIFIED_TYPES) {
  VOCABULARY.set(type, { entity: null, type });
  VOCABULARY.set(`chat${type}`, { entity: 'chat', type });
  VOCABULARY.set(`comment${type}`, { entity: 'comment', type });
}
for (const type of SILENT_CHAT_TYPES) {
  VOCABULARY.set(type, null);
  VOCABULARY.set(`chat${type}`, null);
}
for (const type of SILENT_COMMENT_TYPES) VOCABULARY.set(`comment${type}`, null);

export const isKnownNotificationName = (name: string): boolean => VOCABULARY.has(name.toLowerCase());

/** The kinds the names ask for; an empty list (only never-notified names) matches nothing. */
export function notificationKinds(names: string[]): NotificationKind[] {
  const kinds: NotificationKind[] = [];
  for (const name of names) {
    const kind = VOCABULARY.get(name.toLowerCase());
    if (kind != null) kinds.push(kind);
  }
  return kinds;
}
