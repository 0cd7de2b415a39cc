import type { AppDirectory } from '../../apps/directory.js';
import type { Db } from '../../db/client.js';
import { groupBy } from '../../group-by.js';
import { dueForRelease } from '../store/events.js';
import type { Participation } from './participation.js';
import type { Posting } from './posting.js';
import type { RoomDirectory } from './room-directory.js';

export interface ChatSweepDeps {
  db: Db;
  apps: AppDirectory;
  rooms: RoomDirectory;
  participation: Participation;
  posting: Posting;
  /** Sessions idle this long end (in rooms with enableautoexpiresessions). */
  sessionIdleSeconds: number;
}

/** The chat area's periodic work: idle sessions out (with exit events), overdue delayed messages in. */
export class ChatSweep {
  constructor(private readonly deps: ChatSweepDeps) {}

  async run(): Promise<void> {
    const { db, apps, rooms, participation, posting } = this.deps;
    for (const gone of await participation.sweep(this.deps.sessionIdleSeconds)) {
      if (gone.room.enableEnterAndExit) await posting.system(gone.app, gone.room, { eventtype: 'exit', userid: gone.userId });
    }
    for (const [roomId, due] of groupBy(await dueForRelease(db, new Date()), (d) => d.roomId)) {
      // A room's events all belong to its app.
      const app = await apps.get((due[0] as { appId: string }).appId);
      const room = app === undefined ? undefined : await rooms.get(app, roomId);
      if (app === undefined || room === undefined) continue;
      const ids = due.map((d) => d.id);
      await posting.stored(app, room, ids);
    }
  }
}
