import type { Application } from '../apps/types.js';
import type { Queryable } from '../db/client.js';
import type { ChatEvent, Room, RoomEffect, RoomEffectKind, SystemEventInput } from './types.js';
import type { EventView, RoomView } from './views.js';

export type { ChatEvent, EventView, Room, RoomEffect, RoomEffectKind, RoomView, SystemEventInput };

/**
 * What the chat core offers other chat code (moderation): stable, typed, no HTTP.
 * Every method checks nothing about the caller; routes do that.
 */
export interface ChatContext {
  rooms: {
    /** 404 `Room {roomid} not found.` */
    require(app: Application, roomid: string): Promise<Room>;
    /** The chat.room object; `extra` fields are merged in (e.g. bouncedusers, shadowbannedusers). */
    view(room: Room, extra?: Record<string, unknown>): RoomView;
  };
  events: {
    /** 404 `Event {eventid} not found in room {roomid}.` */
    require(app: Application, roomid: string, eventid: string): Promise<ChatEvent>;
    /** chat.event objects for rows, users fetched in one batch, replyto targets in one query. */
    views(app: Application, rows: ChatEvent[]): Promise<EventView[]>;
    view(app: Application, row: ChatEvent): Promise<EventView>;
  };
  publish: {
    /**
     * Gives already-stored events that wait outside the feed (seq null: pre-moderation, delay)
     * their feed positions in one transaction, then pushes them (memory ring + bus + hooks).
     * Ids already in the feed are skipped. Returns the views of those published, in feed order.
     * `prepare` runs first in the same transaction (e.g. a moderation decision taking an event out of the feed).
     */
    stored(app: Application, room: Room, eventIds: string[], prepare?: (tx: Queryable) => Promise<void>): Promise<EventView[]>;
    /**
     * Stores a new event and publishes it in the same step. `prepare` runs inside the same
     * transaction before the insert (e.g. to mark the target of a replace).
     */
    system(app: Application, room: Room, input: SystemEventInput, prepare?: (tx: Queryable) => Promise<void>): Promise<EventView>;
  };
  effects: {
    /** Effects in force for the user in the room (expired ones left out); cached, exact across nodes. */
    active(app: Application, roomid: string, userid: string): Promise<RoomEffect[]>;
    /** All effects in force in the room. */
    list(app: Application, roomid: string): Promise<RoomEffect[]>;
    set(app: Application, roomid: string, userid: string, effect: RoomEffectKind, options: { expires: Date | null; reason?: string; byUserId?: string | null }): Promise<void>;
    clear(app: Application, roomid: string, userid: string, effect: RoomEffectKind): Promise<boolean>;
  };
  participants: {
    /** Ends the user's session and subscription in the room (bounce); true when they were in it. */
    remove(app: Application, room: Room, userid: string): Promise<boolean>;
  };
  /** Removes the user's events in the room and publishes a `purge` event naming them (chatpurge hook); `purged` counts the removed events. */
  purge(app: Application, room: Room, userid: string, byUserId: string): Promise<{ event: EventView; purged: number }>;
}
