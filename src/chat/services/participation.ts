import type { AppDirectory } from '../../apps/directory.js';
import type { Application } from '../../apps/types.js';
import type { Db } from '../../db/client.js';
import { notFound } from '../../errors.js';
import { internal, on, send } from '../../internal-messages.js';
import type { Bus } from '../../realtime/bus.js';
import { SingleFlight } from '../../single-flight.js';
import * as store from '../store/participants.js';
import { addInRoom } from '../store/rooms.js';
import type { Room, Subscription } from '../types.js';
import type { NewUserRow } from '../../users/store.js';
import type { User } from '../../users/types.js';
import { GroupCommit } from '../../db/group-commit.js';
import { newId } from '../../ids.js';
import { nextTurn } from '../../next-turn.js';
import type { Logger } from '../../logger.js';
import { commitMetrics } from '../../metrics/registry.js';
import type { RoomDirectory } from './room-directory.js';

const SWEEP_BATCH = 1000;
/**
 * Sessions whose activity one statement writes. A sweep after a crowd's half minute writes tens
 * of thousands: 20,000 took 254 ms as one statement on the embedded database, which answers
 * nothing else meanwhile. In batches, with a turn of the loop between them, requests wait for one
 * batch at most (about 18 ms, the first of a sweep 44–49 ms; 369 ms in all).
 */
const TOUCH_BATCH = 1000;
/** Membership is remembered for this many rooms; beyond, the memory starts over (reads fall back to the database). */
const ROOMS_REMEMBERED = 20_000;

const memberKey = (roomId: string, userId: string) => `${roomId}/${userId}`;

interface Departure {
  appId: string;
  roomId: string;
  userId: string;
}

/** An arrival as its batch's statement left it. */
export type Joined = store.Arrived;

/** Where each (room, user) pair of a batch first comes, and the distinct pairs (a statement may not change a row twice). */
function firstOfEach<A extends { roomId: string; userId: string }>(batch: A[]): { first: Map<string, number>; distinct: A[] } {
  const first = new Map<string, number>();
  batch.forEach((a, i) => first.set(memberKey(a.roomId, a.userId), first.get(memberKey(a.roomId, a.userId)) ?? i));
  return { first, distinct: [...first.values()].map((i) => batch[i] as A) };
}

/** A user new to the pool, created and joined by one statement. */
export interface NewcomerJoined {
  user: User;
  joined: Joined;
}

/** Distinct pairs once each; a repeat in the same batch did not enter. */
async function arrive(db: Db, batch: store.Arrival[]): Promise<Joined[]> {
  const { first, distinct } = firstOfEach(batch);
  const done = new Map(distinct.map((a, i) => [memberKey(a.roomId, a.userId), i]));
  const written = await store.arriveMany(db, distinct, new Date());
  return batch.map((a, i) => {
    const key = memberKey(a.roomId, a.userId);
    const w = written[done.get(key) as number] as store.Arrived;
    return { ...w, entered: first.get(key) === i && w.entered };
  });
}

/** Distinct pairs once each; a repeat in the same batch is answered undefined (it then joins as anyone else). */
async function arriveNew(db: Db, batch: store.Newcomer[]): Promise<(NewcomerJoined | undefined)[]> {
  const { first, distinct } = firstOfEach(batch);
  const written = await store.arriveNewMany(db, distinct, new Date());
  const done = new Map(distinct.map((c, i) => [memberKey(c.roomId, c.userId), written[i]]));
  return batch.map((c, i) => {
    const key = memberKey(c.roomId, c.userId);
    const w = first.get(key) === i ? done.get(key) : undefined;
    return w === undefined ? undefined : { user: w.user, joined: w.arrived };
  });
}

/** Per departure, the room's counters as its statement left them when the user was in the room (a repeat in the same batch was not). */
async function depart(db: Db, batch: Departure[]): Promise<(store.RoomCounters | undefined)[]> {
  const { first, distinct } = firstOfEach(batch);
  const gone = await store.departMany(db, distinct);
  const left = new Map(distinct.map((d, i) => [memberKey(d.roomId, d.userId), gone[i]]));
  return batch.map((d, i) => (first.get(memberKey(d.roomId, d.userId)) === i ? left.get(memberKey(d.roomId, d.userId)) : undefined));
}

export interface ParticipationDeps {
  db: Db;
  log: Logger;
  bus: Bus;
  apps: AppDirectory;
  rooms: RoomDirectory;
}

export interface Expired {
  app: Application;
  room: Room;
  userId: string;
}

/**
 * Who is in which room. Sessions live in chat_participants; commands check membership against
 * a per-room memory set (positive entries only, dropped on every node when a user leaves; a check
 * or a join that such a departure overtook does not fill it; all forgotten when the bus comes back
 * after an outage, as departures announced meanwhile may be lost).
 * Activity from commands is remembered and written in bulk by the sweep, which also expires
 * idle sessions of rooms with enableautoexpiresessions.
 */
export class Participation {
  private readonly joined = new Map<string, Set<string>>();
  private readonly checking = new SingleFlight<boolean>();
  private activity = new Map<string, Set<string>>();
  private readonly arrivals: GroupCommit<store.Arrival, Joined>;
  private readonly newcomers: GroupCommit<store.Newcomer, NewcomerJoined | undefined>;
  private readonly departures: GroupCommit<Departure, store.RoomCounters | undefined>;

  constructor(private readonly deps: ParticipationDeps) {
    this.arrivals = new GroupCommit((batch) => this.arriveAll(batch), deps.log, 'joining rooms', commitMetrics('chat_joins'));
    this.newcomers = new GroupCommit((batch) => this.arriveNewAll(batch), deps.log, 'joining new users', commitMetrics('chat_joins_new'));
    this.departures = new GroupCommit((batch) => this.departAll(batch), deps.log, 'leaving rooms', commitMetrics('chat_exits'));
    on(deps.bus, internal.participantLeft, (_appId, [roomId, userId]) => {
      this.joined.get(roomId)?.delete(userId);
      this.checking.invalidate(memberKey(roomId, userId));
    });
    deps.bus.onReconnect(() => {
      this.joined.clear();
      this.checking.reset();
    });
  }

  /**
   * Starts or refreshes the session and the subscription; `entered` when the user was not in the
   * room; the room's counters as the write left them. Group-committed with other arrivals.
   */
  async join(app: Application, room: Room, userId: string): Promise<Joined> {
    const since = this.checking.stamp();
    const result = await this.arrivals.submit({ appId: app.id, roomId: room.id, userId, subscriptionId: newId() });
    this.arrived(room.id, userId, since);
    return result;
  }

  /**
   * `join` for a user new to the pool (`user`, the row to create), created by the same statement
   * as the arrivals of other newcomers at once; undefined when the id or the handle turned out
   * taken (nothing written: the caller joins them as anyone else).
   */
  async joinNew(app: Application, room: Room, user: NewUserRow): Promise<NewcomerJoined | undefined> {
    const since = this.checking.stamp();
    const result = await this.newcomers.submit({ appId: app.id, roomId: room.id, userId: user.userId, subscriptionId: newId(), user });
    if (result !== undefined) this.arrived(room.id, user.userId, since);
    return result;
  }

  /** After an arrival's write (`since` stamped before it): the membership is remembered. */
  private arrived(roomId: string, userId: string, since: number): void {
    const key = memberKey(roomId, userId);
    // A departure announced during the write may be newer than it: then the next check reads the database.
    const current = this.checking.unchangedSince(key, since);
    // Checks already loading may predate the arrival, so later callers must not share them.
    this.checking.detach(key);
    if (current) this.remember(roomId, userId);
  }

  private async arriveAll(batch: store.Arrival[]): Promise<Joined[]> {
    const since = this.deps.rooms.stamp();
    const written = await arrive(this.deps.db, batch);
    this.roomsMoved(batch, written, since);
    return written;
  }

  private async departAll(batch: Departure[]): Promise<(store.RoomCounters | undefined)[]> {
    const since = this.deps.rooms.stamp();
    const written = await depart(this.deps.db, batch);
    this.roomsMoved(
      batch,
      written.map((room) => (room === undefined ? undefined : { room })),
      since,
    );
    return written;
  }

  private async arriveNewAll(batch: store.Newcomer[]): Promise<(NewcomerJoined | undefined)[]> {
    const since = this.deps.rooms.stamp();
    const written = await arriveNew(this.deps.db, batch);
    this.roomsMoved(
      batch,
      written.map((w) => w?.joined),
      since,
    );
    return written;
  }

  /**
   * Each room whose count the batch moved (someone entered, or left) is announced changed once,
   * this node keeping it with the counters the write returned.
   */
  private roomsMoved(batch: { appId: string; roomId: string }[], written: ({ entered?: boolean; room: store.RoomCounters } | undefined)[], since: number): void {
    const moved = new Map<string, { appId: string; counters: store.RoomCounters }>();
    batch.forEach((a, i) => {
      const w = written[i];
      if (w !== undefined && w.entered !== false) moved.set(a.roomId, { appId: a.appId, counters: w.room });
    });
    for (const [roomId, { appId, counters }] of moved) this.deps.rooms.countersMoved(appId, roomId, counters, since);
  }

  /** Ends the session and the subscription; true when the user was in the room. */
  async leave(app: Application, room: Room, userId: string): Promise<boolean> {
    const left = await this.departures.submit({ appId: app.id, roomId: room.id, userId });
    send(this.deps.bus, app.id, internal.participantLeft, [room.id, userId]);
    return left !== undefined;
  }

  async touch(app: Application, room: Room, userId: string): Promise<Subscription> {
    if (!(await this.isJoined(app, room.id, userId))) throw notFound(`User ${userId} is not in room ${room.id}.`);
    const now = new Date();
    return this.deps.db.transaction(async (tx) => {
      await store.upsertParticipant(tx, app.id, room.id, userId, now);
      return store.upsertSubscription(tx, app.id, room.id, userId, now);
    });
  }

  async isJoined(_app: Application, roomId: string, userId: string): Promise<boolean> {
    if (this.joined.get(roomId)?.has(userId) === true) return true;
    return this.checking.run(
      memberKey(roomId, userId),
      async () => (await store.findParticipant(this.deps.db, roomId, userId)) !== undefined,
      (found) => {
        if (found) this.remember(roomId, userId);
      },
    );
  }

  /** A command counts as activity: the session is refreshed at the next sweep. */
  noteActivity(roomId: string, userId: string): void {
    let users = this.activity.get(roomId);
    if (users === undefined) {
      users = new Set();
      this.activity.set(roomId, users);
    }
    users.add(userId);
  }

  /** Writes remembered activity, then removes sessions idle for longer than `idleSeconds`. */
  async sweep(idleSeconds: number): Promise<Expired[]> {
    const activity = this.activity;
    this.activity = new Map();
    const now = new Date();
    const seen = [...activity].flatMap(([roomId, users]) => [...users].map((userId) => ({ roomId, userId })));
    for (let from = 0; from < seen.length; from += TOUCH_BATCH) {
      if (from > 0) await nextTurn();
      await store.touchParticipants(this.deps.db, seen.slice(from, from + TOUCH_BATCH), now);
    }
    const expired = await this.deps.db.transaction(async (tx) => {
      const gone = await store.expireIdle(tx, new Date(now.getTime() - idleSeconds * 1000), SWEEP_BATCH);
      const perRoom = new Map<string, number>();
      for (const g of gone) perRoom.set(g.roomId, (perRoom.get(g.roomId) ?? 0) + 1);
      for (const [roomId, n] of perRoom) await addInRoom(tx, roomId, -n);
      return gone;
    });
    const out: Expired[] = [];
    for (const e of expired) {
      const app = await this.deps.apps.get(e.appId);
      const room = app === undefined ? undefined : await this.deps.rooms.get(app, e.roomId);
      if (app === undefined || room === undefined) continue;
      this.forget(app, e.roomId, e.userId);
      out.push({ app, room, userId: e.userId });
    }
    return out;
  }

  private remember(roomId: string, userId: string): void {
    let users = this.joined.get(roomId);
    if (users === undefined) {
      if (this.joined.size >= ROOMS_REMEMBERED) this.joined.clear();
      users = new Set();
      this.joined.set(roomId, users);
    }
    users.add(userId);
  }

  private forget(app: Application, roomId: string, userId: string): void {
    send(this.deps.bus, app.id, internal.participantLeft, [roomId, userId]);
    this.deps.rooms.changed(app, roomId);
  }
}
