import type { Application } from '../../../apps/types.js';
import type { Config } from '../../../config.js';
import type { Db } from '../../../db/client.js';
import { badRequest, preconditionFailed } from '../../../errors.js';
import { newId } from '../../../ids.js';
import type { ChatContext, RoomView } from '../../context.js';
import type { RoomDetails } from './room-view.js';
import * as store from '../store.js';
import { type ReporterDeps, requireReporter } from './reporter.js';

export interface UserReportsDeps extends ReporterDeps {
  db: Db;
  /** The room's details after a moderation write (its view is the answer). */
  roomDetails: RoomDetails;
  chat: Pick<ChatContext, 'rooms' | 'effects'>;
  config: Pick<Config, 'userReportWindowSeconds'>;
}

/**
 * Room-level user reports. When the reports of a user within the trailing window reach the
 * application's userReportsLimit, the user is flagged in the room and shadow banned there until
 * a moderator decides.
 */
export class UserReports {
  constructor(private readonly deps: UserReportsDeps) {}

  async report(app: Application, roomId: string, userId: string, reporterId: string, reportType: string): Promise<RoomView> {
    if (app.userReportsLimit <= 0) throw preconditionFailed('User reporting is not enabled for this application: its User Reports limit must be greater than 0.');
    const { db, users, chat, roomDetails } = this.deps;
    const room = await chat.rooms.require(app, roomId);
    await users.require(app, userId);
    await requireReporter(this.deps, app, room.id, reporterId);
    const recorded = await store.insertRoomUserReport(db, { id: newId(), appId: app.id, roomId: room.id, userId, reportedBy: reporterId, reportType });
    if (recorded) await this.flagAtLimit(app, room.id, userId);
    return (await roomDetails(app, room.id)).view;
  }

  /**
   * approve=true confirms the flag: the user leaves the flagged list and stays shadow banned in
   * the room. approve=false dismisses it: the shadow ban is lifted. Either way the reports that
   * led to the flag are settled and removed, so counting starts afresh.
   */
  async decide(app: Application, roomId: string, userId: string, approve: boolean): Promise<RoomView> {
    const { db, chat, roomDetails } = this.deps;
    const room = await chat.rooms.require(app, roomId);
    const effects = await chat.effects.active(app, room.id, userId);
    if (!effects.some((e) => e.effect === 'flag')) throw badRequest(`User ${userId} is not flagged in this room.`, { userid: 'is not flagged in this room' });
    if (!approve) await chat.effects.clear(app, room.id, userId, 'shadowban');
    await chat.effects.clear(app, room.id, userId, 'flag');
    await store.deleteRoomUserReports(db, app.id, room.id, userId);
    return (await roomDetails(app, room.id)).view;
  }

  private async flagAtLimit(app: Application, roomId: string, userId: string): Promise<void> {
    const { db, chat, config } = this.deps;
    const recent = await store.countRecentRoomUserReports(db, app.id, roomId, userId, config.userReportWindowSeconds);
    if (recent < app.userReportsLimit) return;
    const reason = 'user reports';
    await chat.effects.set(app, roomId, userId, 'flag', { expires: null, reason });
    await chat.effects.set(app, roomId, userId, 'shadowban', { expires: null, reason });
  }
}
