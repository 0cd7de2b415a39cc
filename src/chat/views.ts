import { isoOrNull } from '../iso.js';
import { jsonOnce } from '../json-once.js';
import type { Shape } from '../realtime/compact/shapes.js';
import type { User } from '../users/types.js';
import { userView, type UserView } from '../users/views.js';
import type { ChatEvent, Participant, Room, Subscription } from './types.js';

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

/** chat.event in compact frames (docs/realtime.md): a replyto target is sent by reference or as its changes once a stream has it. */
export const EVENT_SHAPE: Shape = {
  identity: 'id',
  fields: [
    ['id', 'i', 'uuid'],
    ['roomid', 'r', 'topic'],
    ['body', 'b', 'eq', ''],
    ['originalbody', 'o', 'same', 'body'],
    ['added', 'a', 'iso', 'ts'],
    ['whenmodified', 'w', 'same', 'added'],
    ['ts', 't', 'uuidtime', 'id'],
    ['eventtype', 'e', 'eq', 'speech'],
    ['userid', 'ui', 'sub', 'user', 'userid'],
    ['user', 'U', 'obj', 'app.user'],
    ['customtype', 'ct', 'eq', ''],
    ['customid', 'ci', 'eq', null],
    ['custompayload', 'cp', 'eq', ''],
    ['customfield1', 'c1', 'eq', ''],
    ['customfield2', 'c2', 'eq', ''],
    ['customtags', 'tg', 'eq', []],
    ['replyto', 'rt', 'obj', 'chat.event'],
    ['parentid', 'pi', 'eq', null],
    ['hierarchy', 'hi', 'eq', []],
    ['edited', 'ed', 'eq', false],
    ['deleted', 'de', 'eq', false],
    ['active', 'ac', 'eq', true],
    ['shadowban', 'sb', 'eq', false],
    ['mutedby', 'mb', 'eq', []],
    ['hashtags', 'ht', 'hashtags', 'body'],
    ['likecount', 'lc', 'eq', 0],
    ['replycount', 'rc', 'eq', 0],
    ['reactions', 'rx', 'eq', []],
    ['moderation', 'm', 'eq', 'na'],
    ['reports', 'rp', 'eq', []],
  ],
};

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
      count: r.count,
      users: r.users.map((id) => {
        const u = users.get(id);
        return { userid: id, handle: u?.handle ?? '', displayname: u?.displayName ?? '' };
      }),
    })),
    moderation: row.moderation,
    reports: row.reports,
  };
}

/** A removed event's place in a `remove` event's replyto, once its row is gone. */
export function tombstoneView(id: string, roomId: string): EventView {
  const epoch = new Date(0).toISOString();
  return {
    kind: 'chat.event',
    id,
    roomid: roomId,
    body: '',
    originalbody: '',
    added: epoch,
    whenmodified: epoch,
    ts: 0,
    eventtype: 'removed',
    userid: null,
    user: null,
    customtype: '',
    customid: null,
    custompayload: '',
    customfield1: '',
    customfield2: '',
    customtags: [],
    replyto: null,
    parentid: null,
    hierarchy: [],
    edited: false,
    deleted: true,
    active: false,
    shadowban: false,
    mutedby: [],
    hashtags: [],
    likecount: 0,
    replycount: 0,
    reactions: [],
    moderation: 'na',
    reports: [],
  };
}

/** A page of chat events (`updates`, the scroll-back lists, search, the join's first page). */
export interface EventsPage {
  kind: string;
  room: RoomView | null;
  cursor: string;
  more: boolean;
  itemcount: number;
  events: unknown[];
}

export const eventsPage = (room: RoomView | null, events: unknown[], cursor: string, more: boolean): EventsPage => ({ kind: 'list.chatevents', room, cursor, more, itemcount: events.length, events });

/** What a command did; the reply adds the room (commandJson). */
export interface CommandResult {
  op: string;
  speech: EventView | null;
  action: EventView | null;
  /** The event an admin command published (purge), else null. */
  event: EventView | null;
}

/** The `chat.executecommand` reply, around the room's cached JSON (the room view is the bulk of it). */
export function commandJson(r: CommandResult, roomJson: string): string {
  return `{"kind":"chat.executecommand","op":${JSON.stringify(r.op)},"speech":${jsonOnce(r.speech)},"action":${jsonOnce(r.action)},"event":${jsonOnce(r.event)},"room":${roomJson}}`;
}

export function subscriptionView(sub: Subscription, room: Room) {
  return {
    kind: 'chat.subscription',
    id: sub.id,
    roomid: room.id,
    roomcustomid: room.customId,
    userid: sub.userId,
    roomname: room.name,
    roomcustomtags: room.customTags,
    persist: sub.persist,
    added: sub.added.toISOString(),
    updated: sub.updated.toISOString(),
  };
}

export function participantView(participant: Participant, user: User | undefined) {
  return { kind: 'chat.participant', user: user === undefined ? null : userView(user), added: participant.added.toISOString(), lastseen: participant.lastSeen.toISOString() };
}

/** One room's entry in `batch/details`: each figure under api-v3.md's name and the SDKs' (inroom, mostrecentmessagetime). */
export function roomDetailsView(room: Room, entity: string[]) {
  const lastMessageTime = room.lastMessageAt?.toISOString() ?? null;
  return {
    roomid: room.id,
    customid: room.customId,
    ...(entity.includes('room') ? { room: roomView(room) } : {}),
    ...(entity.includes('numparticipants') ? { numparticipants: room.inRoom, inroom: room.inRoom } : {}),
    ...(entity.includes('lastmessagetime') ? { lastmessagetime: lastMessageTime, mostrecentmessagetime: lastMessageTime } : {}),
  };
}
