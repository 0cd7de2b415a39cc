import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { newApp } from '../helpers/api.js';
import { dropDatabase, freshDatabase } from '../helpers/fresh-database.js';
import { spawnServer, type SpawnedServer } from '../helpers/spawn.js';
import { fill, firstDifference, removeAll, sameApp, tableCounts, updatesPages } from './helpers.js';

/**
 * The restore drill of docs/production-postgres.md (Backups), step by step as written there:
 * pg_dump of a database a server is using, pg_restore into a new empty database in one
 * transaction, a server started on it answering what the first one did. PostgreSQL's own tools,
 * so it runs where the suite has PostgreSQL (DATABASE_URL).
 */
const databaseUrl = process.env['DATABASE_URL'];
const run = promisify(execFile);
const made: (string | undefined)[] = [];
const work = mkdtempSync(join(tmpdir(), 'engage-drill-'));

afterAll(async () => {
  for (const url of made) await dropDatabase(url);
  removeAll(work);
});

describe.runIf(databaseUrl !== undefined)('the PostgreSQL restore drill', () => {
  it('pg_dump while the server runs, pg_restore into an empty database: the same rows, pages, tokens and secrets', async () => {
    const source = (await freshDatabase(databaseUrl, 'drill_source')) as string;
    const target = (await freshDatabase(databaseUrl, 'drill_target')) as string;
    made.push(source, target);
    let server: SpawnedServer | undefined = await spawnServer({ DATABASE_URL: source });
    try {
      const app = await newApp({}, server.url);
      const filled = await fill(app);
      const pages = await updatesPages(server.url, app, filled.roomid, filled.start);
      const file = join(work, 'engage.dump');
      // The drill's two commands, as docs/production-postgres.md gives them.
      await run('pg_dump', ['--format=custom', `--file=${file}`, source]);
      await server.stop();
      server = undefined;
      const counts = await tableCounts({ url: source });
      await run('pg_restore', ['--exit-on-error', '--single-transaction', '--no-owner', `--dbname=${target}`, file]);
      expect(await tableCounts({ url: target })).toEqual(counts);
      server = await spawnServer({ DATABASE_URL: target });
      expect(firstDifference(await updatesPages(server.url, app, filled.roomid, filled.start), pages)).toBeUndefined();
      const there = sameApp(app, server.url);
      expect((await there.api.post(`chat/rooms/${filled.roomid}/command`, { userid: filled.users[0], command: 'after the drill' })).status).toBe(200);
    } finally {
      await server?.stop();
    }
  }, 180_000);
});
