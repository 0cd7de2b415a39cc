import type { PGlite } from '@electric-sql/pglite';
import { getTableName } from 'drizzle-orm';
import { ChangeClock } from '../change-clock.js';
import type { Logger } from '../logger.js';
import { remakeUnlessFull } from './errors.js';
import { chatRoomEffects, chatRoomUserReports, chatRooms } from './schema/index.js';

export const COMMITS_CHANNEL = 'engage_commits';
/** A statement changed more rows than a notification holds: every version moves. */
const EVERYTHING = '*';
/** Postgres refuses payloads of 8,000 bytes and more. */
const PAYLOAD_MAX = 7_000;
/** Keys whose last change is remembered at most (see ChangeClock). */
const REMEMBERED = 100_000;

/** The application_name of the server's own connections to Postgres: their changes are told by notice, not notification. */
export const SERVER_CONNECTIONS = 'engage';
/** A notice that tells the keys a statement changed starts with this. */
export const COMMITS_NOTICE = `${COMMITS_CHANNEL}:`;

/**
 * Versions of what the crowd reads (a room's details, an app's rooms) as this process heard the
 * commits that changed them. Statement triggers tell each change (whatever made it: a service, a
 * cascade, a batch), and an answer made at a version holds while the version stays the same, with
 * no read to check it. Where this process is the only server, it hears each change before the
 * statement that committed it returns: the embedded database notifies it so (pglite-named.ts);
 * on Postgres the server's own connections are told by notice as each statement runs and the
 * change counts once the transaction ends (commit-notices.ts), and other clients' commits notify
 * the connections that listen. Several nodes cannot hear each other's commits in time: no
 * versions there.
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

  /** Keys that changed, comma-separated, or EVERYTHING. */
  changed(keys: string): void {
    if (keys === EVERYTHING) this.clock.changedAll();
    else for (const key of keys.split(',')) this.clock.changed(key);
  }

  readonly heard = (channel: string, payload: string): void => {
    if (channel === COMMITS_CHANNEL) this.changed(payload);
  };
}

function toldTables(): [string, string][] {
  const roomKeys = `select 'room:' || ${chatRooms.id.name} as key from changed union select 'rooms:' || ${chatRooms.appId.name} from changed`;
  const ofRoom = (roomId: string) => `select 'room:' || ${roomId} as key from changed`;
  return [
    [getTableName(chatRooms), roomKeys],
    [getTableName(chatRoomEffects), ofRoom(chatRoomEffects.roomId.name)],
    [getTableName(chatRoomUserReports), ofRoom(chatRoomUserReports.roomId.name)],
  ];
}

const EVENTS = ['insert', 'update', 'delete'] as const;

/**
 * The statement triggers that tell each change to what CommitVersions versions: to the server's
 * own connection by notice (a notification would take Postgres' lock that serialises the commits
 * of every notifying transaction), to anyone else's by a notification on COMMITS_CHANNEL when it
 * commits. Made at each start rather than by a migration: only a database whose server hears them
 * has them (a cluster's commits would tell no one in time).
 */
export function commitTriggers(): string {
  const statements = toldTables().flatMap(([table, keys]) => {
    const tell = `engage_tell_${table}`;
    return [
      `create or replace function ${tell}() returns trigger language plpgsql as $$
       declare keys text;
       begin
         select string_agg(distinct key, ',') into keys from (${keys}) k;
         if keys is null then return null; end if;
         if length(keys) > ${PAYLOAD_MAX} then keys := '${EVERYTHING}'; end if;
         if current_setting('application_name') = '${SERVER_CONNECTIONS}' then raise notice '${COMMITS_NOTICE}%', keys;
         else perform pg_notify('${COMMITS_CHANNEL}', keys); end if;
         return null;
       end $$`,
      ...EVENTS.map(
        (event) =>
          `create or replace trigger engage_tell_${event} after ${event} on ${table} referencing ${event === 'delete' ? 'old' : 'new'} table as changed for each statement execute function ${tell}()`,
      ),
    ];
  });
  return statements.join(';\n');
}

/** Removes commitTriggers' triggers, where no server hears them; when there are none, it takes no lock. */
export function noCommitTriggers(): string {
  const statements = toldTables().flatMap(([table]) => [...EVENTS.map((event) => `drop trigger if exists engage_tell_${event} on ${table}`), `drop function if exists engage_tell_${table}()`]);
  return `do $$ begin if exists (select 1 from pg_proc where proname like 'engage\\_tell\\_%') then ${statements.join('; ')}; end if; end $$`;
}

/** Installs the triggers on the embedded database and hears them (in time: see pglite-named.ts). */
export async function watchCommits(client: PGlite, versions: CommitVersions, log: Logger): Promise<void> {
  await remakeUnlessFull(client.exec(commitTriggers()), log, 'the commit triggers');
  await client.listen(COMMITS_CHANNEL, (payload) => versions.heard(COMMITS_CHANNEL, payload));
}
