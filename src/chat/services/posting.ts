import type { Application } from '../../apps/types.js';
import type { Tx } from '../../db/client.js';
import { forbidden } from '../../errors.js';
import type { PublishHooks } from '../../events/publish-hooks.js';
import { newIdAt } from '../../ids.js';
import type { Logger } from '../../logger.js';
import { maskProfanity } from '../../text/profanity.js';
import { extractHashtags } from '../../text/tags.js';
import type { UserService } from '../../users/service.js';
import { effectActive, type User } from '../../users/types.js';
import { hookEvent, notifyTargets } from '../feed/publisher.js';
import type { FeedWriter } from '../feed/writer.js';
import type { ReactionChange } from '../store/reactions.js';
import type { ChatEvent, Room, SystemEventInput } from '../types.js';
import { eventView, type EventView } from '../views.js';
import type { Participation } from './participation.js';
import type { RoomEffects } from './room-effects.js';

export interface PostingDeps {
  users: UserService;
  hooks: PublishHooks;
  log: Logger;
  effects: RoomEffects;
  participation: Participation;
  writer: FeedWriter;
}

/** A user allowed to post in a room, and whether their posts are shadow-banned. */
export interface Sender {
  user: User;
  shadowban: boolean;
  /** A moderator or admin (by stored role): skips pre-moderation. */
  staff: boolean;
}

/** What a user posts; the service fills in ids, moderation, filtering and timing. */
export interface Draft {
  eventtype: string;
  body: string;
  customtype?: string | undefined;
  customid?: string | undefined;
  custompayload?: string | undefined;
  customfield1?: string | undefined;
  customfield2?: string | undefined;
  customtags?: string[] | undefined;
  replyToId?: string | null;
  parentId?: string | null;
  hierarchy?: string[];
  /** Author of the replied-to/quoted/reacted-to event, for notifications. */
  targetAuthor?: string | null;
  /** A reaction event's change to its target, written in the same batch as the event. */
  reaction?: ReactionChange;
}

const MEMO_ENTRIES = 10_000;
const MEMO_MAX_LENGTH = 200;

/** Events that are messages: pre-moderation and the message delay apply to them. */
const MESSAGES = new Set(['speech', 'quote', 'reply', 'action', 'custom', 'ad', 'announcement']);

/**
 * Who may post, and the one path a user's event takes into a room: filters, pre-moderation,
 * delay, prepublish hooks, then the group-commit writer.
 */
export class Posting {
  private readonly maskedBodies = new Map<string, string>();

  constructor(private readonly deps: PostingDeps) {}

  /** 403 unless the room is open and the user may post in it (joined, not banned, muted or bounced). */
  async sender(app: Application, room: Room, userId: string): Promise<Sender> {
    if (!room.open) throw forbidden(`Room ${room.id} is closed; it does not accept commands.`);
    const user = await this.deps.users.require(app, userId);
    const now = Date.now();
    if (effectActive(user.banned, user.bannedUntil, now)) throw forbidden(`User ${userId} is banned.`);
    if (effectActive(user.muted, user.mutedUntil, now)) throw forbidden(`User ${userId} is muted.`);
    const effects = await this.deps.effects.active(app, room.id, userId);
    if (effects.some((e) => e.effect === 'bounce')) throw forbidden(`User ${userId} has been bounced from room ${room.id}.`);
    if (effects.some((e) => e.effect === 'mute')) throw forbidden(`User ${userId} is muted in room ${room.id}.`);
    if (!(await this.deps.participation.isJoined(app, room.id, userId))) throw forbidden(`User ${userId} must join room ${room.id} before running commands.`);
    this.deps.participation.noteActivity(room.id, userId);
    const shadowban = effectActive(user.shadowBanned, user.shadowBannedUntil, now) || effects.some((e) => e.effect === 'shadowban' || e.effect === 'flag');
    return { user, shadowban, staff: user.role !== 'user' };
  }

  /** Stores and publishes a user's event; answers once committed. */
  async post(app: Application, room: Room, sender: Sender, draft: Draft, prepare?: (tx: Tx) => Promise<void>): Promise<EventView> {
    const message = MESSAGES.has(draft.eventtype);
    const masked = room.enableProfanityFilter ? this.mask(draft.body) : draft.body;
    const pending = message && room.moderation === 'pre' && !sender.staff;
    const delayed = message && !pending && room.delayMessageSeconds > 0;
    const row = newRow(room, {
      ...draft,
      userId: sender.user.userId,
      body: masked,
      originalBody: draft.body,
      shadowban: sender.shadowban,
      moderation: pending ? 'pending' : 'na',
      releaseAt: delayed ? new Date(Date.now() + room.delayMessageSeconds * 1000) : null,
    });
    const view = eventView(row, new Map([[sender.user.userId, sender.user]]), null);
    const hooked = hookEvent(room, view, notifyTargets(view, draft.eventtype === 'reply' ? (draft.targetAuthor ?? null) : null));
    if (hooked !== undefined && !sender.shadowban) await this.deps.hooks.beforePublish(hooked);
    const needsTarget = draft.replyToId !== undefined && draft.replyToId !== null;
    const written = await this.deps.writer.submit({
      app,
      room,
      inserts: [row],
      enterFeed: !pending && !delayed,
      ...(prepare === undefined ? {} : { prepare }),
      ...(draft.reaction === undefined ? {} : { reaction: draft.reaction }),
      ...(needsTarget ? {} : { views: new Map([[row.id, view]]) }),
    });
    if (delayed) this.scheduleRelease(app, room, row.id);
    return written.views[0] as EventView;
  }

  /** Stores and publishes an event the service makes (moderation, room state, admin commands). */
  async system(app: Application, room: Room, input: SystemEventInput, prepare?: (tx: Tx) => Promise<void>): Promise<EventView> {
    const row = newRow(room, {
      eventtype: input.eventtype,
      userId: input.userid,
      body: input.body ?? '',
      originalBody: input.body ?? '',
      replyToId: input.replyto ?? null,
      customtype: input.customtype,
      custompayload: input.custompayload,
    });
    const written = await this.deps.writer.submit({ app, room, inserts: [row], enterFeed: true, ...(prepare === undefined ? {} : { prepare }) });
    return written.views[0] as EventView;
  }

  /** Puts stored waiting events into the feed (approval, delay over). */
  async stored(app: Application, room: Room, eventIds: string[], prepare?: (tx: Tx) => Promise<void>): Promise<EventView[]> {
    if (eventIds.length === 0) return [];
    const written = await this.deps.writer.submit({ app, room, inserts: [], enterFeed: true, publishIds: eventIds, ...(prepare === undefined ? {} : { prepare }) });
    return written.views;
  }

  /** Chat repeats itself ("lol", "gg"): short bodies keep their filtered text, so the matcher runs once per distinct one. */
  private mask(body: string): string {
    if (body.length > MEMO_MAX_LENGTH) return maskProfanity(body).text;
    let masked = this.maskedBodies.get(body);
    if (masked === undefined) {
      masked = maskProfanity(body).text;
      if (this.maskedBodies.size >= MEMO_ENTRIES) this.maskedBodies.clear();
      this.maskedBodies.set(body, masked);
    }
    return masked;
  }

  private scheduleRelease(app: Application, room: Room, id: string): void {
    const timer = setTimeout(() => {
      this.stored(app, room, [id]).catch((err: unknown) => this.deps.log.error({ err, eventId: id }, 'releasing a delayed chat event failed'));
    }, room.delayMessageSeconds * 1000);
    timer.unref();
  }
}

interface RowInput extends Draft {
  userId: string | null;
  originalBody: string;
  shadowban?: boolean;
  moderation?: 'na' | 'pending';
  releaseAt?: Date | null;
}

function newRow(room: Room, d: RowInput): ChatEvent {
  const now = new Date();
  return {
    id: newIdAt(now.getTime()),
    appId: room.appId,
    roomId: room.id,
    seq: null,
    eventType: d.eventtype,
    userId: d.userId,
    body: d.body,
    originalBody: d.originalBody,
    customType: d.customtype ?? '',
    customId: d.customid ?? null,
    customPayload: d.custompayload ?? '',
    customField1: d.customfield1 ?? '',
    customField2: d.customfield2 ?? '',
    customTags: d.customtags ?? [],
    replyToId: d.replyToId ?? null,
    parentId: d.parentId ?? null,
    hierarchy: d.hierarchy ?? [],
    hashtags: extractHashtags(d.body),
    reactions: [],
    likeCount: 0,
    replyCount: 0,
    reports: [],
    reportCount: 0,
    mutedBy: [],
    edited: false,
    deleted: false,
    active: true,
    shadowban: d.shadowban ?? false,
    moderation: d.moderation ?? 'na',
    releaseAt: d.releaseAt ?? null,
    ts: now.getTime(),
    added: now,
    whenModified: now,
  };
}
