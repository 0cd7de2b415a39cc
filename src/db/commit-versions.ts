import type { PGlite } from '@electric-sql/pglite';
import { getTableName } from 'drizzle-orm';
import { ChangeClock } from '../change-clock.js';
import { chatRoomEffects, chatRoomUserReports, chatRooms } from './schema/index.js';

const CHANNEL = 'engage_commits';
/** A statement changed more rows than a notification holds: every version moves. */
const EVERYTHING = '*';
/** Postgres refuses payloads of 8,000 bytes and more. */
const PAYLOAD_MAX = 7_000;
/** Keys whose last change is remembered at most (see ChangeClock). */
const REMEMBERED = 100_000;

/**
 * Versions of what the crowd reads (a room's details, an app's rooms) as this process heard the
 * commits that changed them, on the embedded database: this process is its only client, and
 * statement triggers tell it each committed change (whatever made it: a service, a cascade, a
 * batch) before the statement's caller resumes, so a version read after a change was acknowledged
 * has moved. An answer made at a version holds while the version stays the same, with no read to
 * check it. On Postgres other nodes write too and their commits are not heard in time: no versions.
 */
export class CommitVersions {
  private readonly clock = new ChangeClock(REMEMBERED);

  /** A room's row, its effects and its user reports. */
  room(roomId: string): string {
    return String(this.clock.versionOf(`room:${roomId}`));
  }

  /** Any room of the app (its rows, not their effects). */
  rooms(appId: string): string {
    return String(this.clock.versionOf(`rooms:${appId}`));
  }

  readonly heard = (channel: string, payload: string): void => {
    if (channel !== CHANNEL) return;
    if (payload === EVERYTHING) this.clock.changedAll();
    else for (const key of payload.split(',')) this.clock.changed(key);
  };
}

/**
 * Installs the triggers that tell `versions` of each committed change and listens to them. The
 * triggers are the embedded database's alone (Postgres has no listener in time for them), so they
 * are made at each start rather than by a migration.
 */
export async function watchCommits(client: PGlite, versions: CommitVersions): Promise<void> {
  const rooms = getTableName(chatRooms);
  const roomKeys = `select 'room:' || ${chatRooms.id.name} as key from changed union select 'rooms:' || ${chatRooms.appId.name} from changed`;
  const ofRoom = (roomId: string) => `select 'room:' || ${roomId} as key from changed`;
  const tables: [string, string][] = [
    [rooms, roomKeys],
    [getTableName(chatRoomEffects), ofRoom(chatRoomEffects.roomId.name)],
    [getTableName(chatRoomUserReports), ofRoom(chatRoomUserReports.roomId.name)],
  ];
  const statements = tables.flatMap(([table, keys]) => {
    const tell = `engage_tell_${table}`;
    const trigger = (event: string, transition: string) =>
      `create or replace trigger engage_tell_${event} after ${event} on ${table} referencing ${transition} table as changed for each statement execute function ${tell}()`;
    return [
      `create or replace function ${tell}() returns trigger language plpgsql as $$
       declare keys text;
       begin
         select string_agg(distinct key, ',') into keys from (${keys}) k;
         if keys is not null then perform pg_notify('${CHANNEL}', case when length(keys) > ${PAYLOAD_MAX} then '${EVERYTHING}' else keys end); end if;
         return null;
       end $$`,
      trigger('insert', 'new'),
      trigger('update', 'new'),
      trigger('delete', 'old'),
    ];
  });
  await client.exec(statements.join(';\n'));
  await client.listen(CHANNEL, (payload) => versions.heard(CHANNEL, payload));
}
