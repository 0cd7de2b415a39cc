import type { chatEvents, chatParticipants, chatRooms, chatSubscriptions, RoomEffectKind, StoredReaction } from '../db/schema/chat.js';

export type Room = typeof chatRooms.$inferSelect;
export type ChatEvent = typeof chatEvents.$inferSelect;
export type Subscription = typeof chatSubscriptions.$inferSelect;
export type Participant = typeof chatParticipants.$inferSelect;
export type { RoomEffectKind, StoredReaction };

/** A room effect in force (bounce, mute, shadowban, flag); `expires` null means until lifted. */
export interface RoomEffect {
  roomId: string;
  userId: string;
  effect: RoomEffectKind;
  expires: Date | null;
  reason: string;
  byUserId: string | null;
  added: Date;
}

/** A new event the service writes on its own behalf (moderation, admin commands, announcements). */
export interface SystemEventInput {
  /** bounce, purge, replace, remove, announcement, ... */
  eventtype: string;
  /** Who the event is by (or about, for bounce/purge); null for none. */
  userid: string | null;
  body?: string;
  /** The event it is about (replace/remove: the changed event). */
  replyto?: string | null;
  customtype?: string;
  custompayload?: string;
  /** Webhook event name for core.hooks (e.g. chatpurge); omitted: no hooks fire. */
  hookEventType?: string;
}

/** Event types a user's `command` may post. */
export const COMMAND_EVENT_TYPES = ['speech', 'announcement', 'custom', 'ad'] as const;

/** Event types that show as messages; others (reaction, replace, remove, purge, ...) only change what is shown. */
export const DISPLAYABLE_TYPES = ['speech', 'quote', 'reply', 'announcement', 'custom', 'action', 'ad', 'enter', 'exit'] as const;
