import type { User } from '../users/types.js';
import { userView, type UserView } from '../users/views.js';
import { isoOrNull } from '../iso.js';
import type { ChatEvent, Room } from './context.js';

/** The chat.room object. */
export function roomView(room: Room, extra: Record<string, unknown> = {}) {
  return {
    kind: 'chat.room',
    id: room.id,
    appid: room.appId,
    ownerid: room.ownerId,
    name: room.name,
    description: room.description,
    pictureurl: room.pictureUrl,
    customtype: room.customType,
    customid: room.customId,
    custompayload: room.customPayload,
    customtags: room.customTags,
    customfield1: room.customField1,
    customfield2: room.customField2,
    enableactions: room.enableActions,
    enableenterandexit: room.enableEnterAndExit,
    enableprofanityfilter: room.enableProfanityFilter,
    enableautoexpiresessions: room.enableAutoExpireSessions,
    open: room.open,
    private: room.private,
    inroom: room.inRoom,
    moderation: room.moderation,
    maxreports: room.maxReports,
    delaymessageseconds: room.delayMessageSeconds,
    lastmessagetime: isoOrNull(room.lastMessageAt),
    added: room.added.toISOString(),
    whenmodified: room.whenModified.toISOString(),
    ...extra,
  };
}

export type RoomView = ReturnType<typeof roomView>;

export interface ReactionView {
  type: string;
  count: number;
  users: { userid: string; handle: string; displayname: string }[];
}

/** The chat.event object. `replyto` is the target's view (one level deep: its own replyto is null). */
export interface EventView {
  kind: 'chat.event';
  id: string;
  roomid: string;
  body: string;
  originalbody: string;
  added: string;
  whenmodified: string;
  ts: number;
  eventtype: string;
  userid: string | null;
  user: UserView | null;
  customtype: string;
  customid: string | null;
  custompayload: string;
  customfield1: string;
  customfield2: string;
  customtags: string[];
  replyto: EventView | null;
  parentid: string | null;
  hierarchy: string[];
  edited: boolean;
  deleted: boolean;
  active: boolean;
  shadowban: boolean;
  mutedby: string[];
  hashtags: string[];
  likecount: number;
  replycount: number;
  reactions: ReactionView[];
  moderation: string;
  reports: { userid: string; reason: string }[];
}

/** Builds one chat.event from its row, with users and the replyto target already looked up. */
export function eventView(row: ChatEvent, users: Map<string, User>, replyTo: EventView | null): EventView {
  const author = row.userId === null ? undefined : users.get(row.userId);
  const added = row.added.toISOString();
  return {
    kind: 'chat.event',
    id: row.id,
    roomid: row.roomId,
    body: row.body,
    originalbody: row.originalBody,
    added,
    whenmodified: row.whenModified.getTime() === row.added.getTime() ? added : row.whenModified.toISOString(),
    ts: row.ts,
    eventtype: row.eventType,
    userid: row.userId,
    user: author === undefined ? null : userView(author),
    customtype: row.customType,
    customid: row.customId,
    custompayload: row.customPayload,
    customfield1: row.customField1,
    customfield2: row.customField2,
    customtags: row.customTags,
    replyto: replyTo,
    parentid: row.parentId,
    hierarchy: row.hierarchy,
    edited: row.edited,
    deleted: row.deleted,
    active: row.active,
    shadowban: row.shadowban,
    mutedby: row.mutedBy,
    hashtags: row.hashtags,
    likecount: row.likeCount,
    replycount: row.replyCount,
    reactions: row.reactions.map((r) => ({
      type: r.type,
      count: r.users.length,
      users: r.users.map((id) => {
        const u = users.get(id);
        return { userid: id, handle: u?.handle ?? '', displayname: u?.displayName ?? '' };
      }),
    })),
    moderation: row.moderation,
    reports: row.reports,
  };
}

/** Event types that show as messages; others (reaction, replace, remove, purge, ...) only change what is shown. */
export const DISPLAYABLE_TYPES = ['speech', 'quote', 'reply', 'announcement', 'custom', 'action', 'ad', 'enter', 'exit'] as const;
