import { execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, userToken } from '../foundation/util.js';
import { newApp, type TestApp, uid } from '../helpers/api.js';
import { dropDatabase, freshDatabase, onDatabase } from '../helpers/fresh-database.js';
import { MANAGE_TOKEN, spawnServer, type SpawnedServer } from '../helpers/spawn.js';
import { downloadBackup, expectEveryKindFilled, type Filled, fill, firstDifference, listing, removeAll, runCommand, sameApp, tableCounts, targetDir, updatesPages } from './helpers.js';

/**
 * POST /api/v3/manage/backups while writes go on, then `npm run restore` of the file into an
 * empty embedded directory (and, on Postgres, an empty database): every write acknowledged before
 * the backup was asked for is there, the tokens and secrets work, and each refusal leaves its
 * target as it was.
 */
const databaseUrl = process.env['DATABASE_URL'];
const EMBEDDED = { DATABASE_URL: '' };
const run = promisify(execFile);
let sourceUrl: string | undefined;
let server: SpawnedServer;
let app: TestApp;
let filled: Filled;
let backupFile: string;
/** Messages answered 200 before the backup was asked for. */
let acknowledgedBefore: string[] = [];
let restoredDir: string;
let restoredCounts: Record<string, number>;
const cleanup: (string | undefined)[] = [];
const cleanupDatabases: (string | undefined)[] = [];

beforeAll(async () => {
  sourceUrl = await freshDatabase(databaseUrl, 'backup_source');
  server = await spawnServer({ ...onDatabase(sourceUrl), RATE_LIMIT_CHAT: '1000000/10s' });
  app = await newApp({}, server.url);
  filled = await fill(app);
}, 120_000);

afterAll(async () => {
  await server?.stop();
  await dropDatabase(sourceUrl);
  for (const url of cleanupDatabases) await dropDatabase(url);
  removeAll(...cleanup);
});

/** Posts until stopped, two at a time; the bodies of those answered 200, in the order answered. */
function writeOn(): { acknowledged: string[]; stop: () => Promise<void> } {
  const acknowledged: string[] = [];
  let stopped = false;
  const worker = async (w: number) => {
    for (let i = 0; !stopped; i++) {
      const body = `during w${w}-${i}`;
      const res = await app.api.post(`chat/rooms/${filled.roomid}/command`, { userid: filled.users[i % 3], command: body });
      if (res.status === 200) acknowledged.push(body);
    }
  };
  const workers = [worker(0), worker(1)];
  return {
    acknowledged,
    stop: async () => {
      stopped = true;
      await Promise.all(workers);
    },
  };
}

describe('a backup while the server serves writes', () => {
  it('streams a gzipped backup holding every write acknowledged before it was asked for; npm run restore makes an empty DATA_DIR of it', async () => {
    const writes = writeOn();
    while (writes.acknowledged.length < 40) await new Promise((r) => setTimeout(r, 10));
    acknowledgedBefore = [...writes.acknowledged];
    const backup = await downloadBackup(server.url);
    const during = writes.acknowledged.length - acknowledgedBefore.length;
    await writes.stop();
    expect(backup.status).toBe(200);
    expect(during).toBeGreaterThan(0);
    backupFile = backup.file;
    cleanup.push(backupFile);
    const text = gunzipSync(readFileSync(backupFile)).toString();
    expect(text.startsWith('-- engage-server backup 1\n-- manifest: ')).toBe(true);
    // Token hashes, never the tokens themselves.
    expect(text).not.toContain(app.token);

    restoredDir = targetDir();
    cleanup.push(dirname(restoredDir));
    const restored = await runCommand('restore', [backupFile], { ...EMBEDDED, DATA_DIR: restoredDir });
    expect(restored.stderr).toMatch(/restore: done/);
    expect(restored.code).toBe(0);
    expect(restored.stdout).toMatch(/Rows by table:/);
    restoredCounts = await tableCounts({ dir: restoredDir });
    expectEveryKindFilled(restoredCounts);

    const copy = await spawnServer({ ...EMBEDDED, DATA_DIR: restoredDir });
    try {
      const there = sameApp(app, copy.url);
      const bodies = new Set<string>();
      const feed = await there.api.get(`chat/rooms/${filled.roomid}/updates?limit=500&cursor=${encodeURIComponent(filled.start)}`);
      for (const event of feed.body.data.events as { body: string }[]) bodies.add(event.body);
      expect(acknowledgedBefore.filter((body) => !bodies.has(body))).toEqual([]);
      // The JWT secret came along: a user token signed with it is accepted, one signed otherwise is not.
      const signed = (secret: string) => userToken(secret, { userid: filled.users[0] });
      expect((await there.api.withHeaders(bearer(await signed(app.jwtsecret))).get(`chat/rooms/${filled.roomid}`)).status).toBe(200);
      expect((await there.api.withHeaders(bearer(await signed('another-secret-entirely-0123456789'))).get(`chat/rooms/${filled.roomid}`)).status).toBe(403);
    } finally {
      await copy.stop();
    }
  }, 180_000);

  it('answers 409 to a second backup while one is under way, and 403 without the manage token', async () => {
    const first = fetch(`${server.url}/api/v3/manage/backups`, { method: 'POST', headers: { 'x-manage-token': MANAGE_TOKEN } });
    await new Promise((r) => setTimeout(r, 50));
    const second = await fetch(`${server.url}/api/v3/manage/backups`, { method: 'POST', headers: { 'x-manage-token': MANAGE_TOKEN } });
    expect(second.status).toBe(409);
    expect(((await second.json()) as { message: string }).message).toMatch(/already under way/);
    const done = await first;
    expect(done.status).toBe(200);
    await done.arrayBuffer();
    const refused = await fetch(`${server.url}/api/v3/manage/backups`, { method: 'POST', headers: { 'x-manage-token': 'not-the-manage-token-at-all' } });
    expect(refused.status).toBe(403);
  }, 120_000);
});

if (databaseUrl !== undefined)
  describe('npm run restore into PostgreSQL', () => {
    it('fills an empty database with the same rows, and a server on it answers the same updates pages byte for byte', async () => {
      const target = (await freshDatabase(databaseUrl, 'backup_restored')) as string;
      try {
        const restored = await runCommand('restore', [backupFile], { DATABASE_URL: target });
        expect(restored.code).toBe(0);
        expect(await tableCounts({ url: target })).toEqual(restoredCounts);
        const onPostgres = await spawnServer({ DATABASE_URL: target });
        const embedded = await spawnServer({ ...EMBEDDED, DATA_DIR: restoredDir });
        try {
          expect(firstDifference(await updatesPages(onPostgres.url, app, filled.roomid, filled.start), await updatesPages(embedded.url, app, filled.roomid, filled.start))).toBeUndefined();
        } finally {
          await Promise.all([onPostgres.stop(), embedded.stop()]);
        }
        // A database that holds data is refused, and left as it was (the servers have since worked on it: delivered webhooks).
        const served = await tableCounts({ url: target });
        const again = await runCommand('restore', [backupFile], { DATABASE_URL: target });
        expect(again.code).not.toBe(0);
        expect(again.stderr).toMatch(/holds data.*Nothing was changed.*--replace/s);
        expect(await tableCounts({ url: target })).toEqual(served);
      } finally {
        await dropDatabase(target);
      }
    }, 180_000);
  });

describe('npm run restore refuses', () => {
  it('a DATA_DIR that holds data, leaving it as it was, and replaces it when told to (--replace)', async () => {
    const before = listing(restoredDir);
    const rowsBefore = await tableCounts({ dir: restoredDir });
    const refused = await runCommand('restore', [backupFile], { ...EMBEDDED, DATA_DIR: restoredDir });
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/not empty.*Nothing was changed.*--replace/s);
    expect(listing(restoredDir)).toEqual(before);
    expect(await tableCounts({ dir: restoredDir })).toEqual(rowsBefore);

    const replaced = await runCommand('restore', [backupFile, '--replace'], { ...EMBEDDED, DATA_DIR: restoredDir });
    expect(replaced.code).toBe(0);
    expect(await tableCounts({ dir: restoredDir })).toEqual(restoredCounts);
  }, 120_000);

  it('a truncated file, a damaged one and files of other kinds, with a clear message, creating nothing', async () => {
    const gzipped = readFileSync(backupFile);
    const text = gunzipSync(gzipped);
    const variants: [string, Buffer, RegExp][] = [
      ['truncated.sql.gz', gzipped.subarray(0, Math.floor(gzipped.length / 2)), /damaged \(unexpected end of file\)/],
      ['cut-before-its-end.sql', text.subarray(0, text.lastIndexOf('-- end: ')), /damaged \(its end line is missing\)/],
      ['altered.sql', Buffer.from(text.toString().replace(`${acknowledgedBefore[0]}\t`, `${acknowledgedBefore[0]}!\t`)), /damaged \(its checksum does not match/],
      ['corrupt.sql.gz', flipped(gzipped), /damaged \(incorrect data check\)/],
      ['package.json.gz', gzipSync(readFileSync('package.json')), /not an engage-server backup/],
      ['dump.pgdump', Buffer.concat([Buffer.from('PGDMP'), Buffer.alloc(100)]), /pg_dump archive.*pg_restore/],
      ['empty', Buffer.alloc(0), /not an engage-server backup/],
    ];
    await Promise.all(
      variants.map(async ([name, bytes, message]) => {
        const file = `${backupFile}.${name}`;
        writeFileSync(file, bytes);
        cleanup.push(file);
        const target = targetDir();
        cleanup.push(dirname(target));
        const result = await runCommand('restore', [file], { ...EMBEDDED, DATA_DIR: target });
        expect({ name, code: result.code, stderr: result.stderr }).toMatchObject({ name, code: 1, stderr: expect.stringMatching(message) });
        expect({ name, created: existsSync(target) }).toEqual({ name, created: false });
      }),
    );
  }, 240_000);
});

if (databaseUrl !== undefined)
  describe("a backup is PostgreSQL's own script", () => {
    it('psql restores it into an empty database, with the same rows as npm run restore', async () => {
      const target = (await freshDatabase(databaseUrl, 'backup_psql')) as string;
      cleanupDatabases.push(target);
      const psql = spawn('psql', ['--quiet', '--no-psqlrc', '--set=ON_ERROR_STOP=1', '--output=/dev/null', `--dbname=${target}`], { stdio: ['pipe', 'ignore', 'pipe'] });
      let stderr = '';
      psql.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      psql.stdin.end(gunzipSync(readFileSync(backupFile)));
      const code = await new Promise((resolve) => psql.once('exit', resolve));
      expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
      expect(await tableCounts({ url: target })).toEqual(restoredCounts);
    }, 120_000);
  });

if (databaseUrl !== undefined)
  describe('npm run restore into PostgreSQL refuses a damaged file', () => {
    it('leaving the empty database empty: never half a restore', async () => {
      const target = (await freshDatabase(databaseUrl, 'backup_refused')) as string;
      try {
        // A file whole by its checksum and counts whose last table holds a row twice: it passes the
        // check, and fails at the end of the load, after every other table was filled.
        const file = `${backupFile}.${uid('twice')}.sql`;
        writeFileSync(file, withRowTwice(gunzipSync(readFileSync(backupFile)).toString()));
        cleanup.push(file);
        const result = await runCommand('restore', [file], { DATABASE_URL: target });
        expect(result.code).toBe(1);
        expect(result.stderr).toMatch(/damaged \(public\.\w+: duplicate key value/);
        expect(await tableCounts({ url: target })).toEqual({});
      } finally {
        await dropDatabase(target);
      }
    }, 120_000);
  });

/** The backup's text with the first row of its last non-empty table twice, its manifest, row count and checksum made to match. */
function withRowTwice(text: string): string {
  const lines = text.split('\n');
  const manifest = JSON.parse((lines[1] as string).slice('-- manifest: '.length)) as { tables: { name: string; rows: number }[] };
  const table = manifest.tables.filter((t) => t.rows > 0).at(-1) as { name: string; rows: number };
  const copyAt = lines.findIndex((l) => l.startsWith(`COPY ${table.name} (`));
  lines.splice(copyAt + 1, 0, lines[copyAt + 1] as string);
  table.rows += 1;
  lines[1] = `-- manifest: ${JSON.stringify(manifest)}`;
  const endAt = lines.findIndex((l) => l.startsWith('-- end: '));
  const end = JSON.parse((lines[endAt] as string).slice('-- end: '.length)) as { rows: number };
  const body = `${lines.slice(0, endAt).join('\n')}\n`;
  return `${body}-- end: ${JSON.stringify({ rows: end.rows + 1, sha256: createHash('sha256').update(body).digest('hex') })}\n`;
}

/** Resolves once `done` holds (asked every 100 ms), or throws after 20 s. */
async function until(done: () => Promise<boolean>): Promise<void> {
  for (const deadline = Date.now() + 20_000; !(await done()); ) {
    if (Date.now() > deadline) throw new Error('still not so after 20 s');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The file with one byte of its last gzip member's checksum changed (where a change in the data is caught at the latest). */
function flipped(bytes: Buffer): Buffer {
  const copy = Buffer.from(bytes);
  const at = copy.length - 6;
  copy[at] = (copy[at] as number) ^ 0xff;
  return copy;
}

/**
 * The restore drill of docs/production-postgres.md (Backups), step by step as written there:
 * pg_dump of a database a server is using, pg_restore into a new empty database in one
 * transaction, a server started on it answering what the first one did.
 */
if (databaseUrl !== undefined)
  describe('the PostgreSQL restore drill', () => {
    it('pg_dump while the server runs, pg_restore into an empty database: the same rows, pages, tokens and secrets', async () => {
      const source = (await freshDatabase(databaseUrl, 'drill_source')) as string;
      const target = (await freshDatabase(databaseUrl, 'drill_target')) as string;
      cleanupDatabases.push(source, target);
      let server: SpawnedServer | undefined = await spawnServer({ DATABASE_URL: source });
      try {
        const app = await newApp({}, server.url);
        const filled = await fill(app);
        const dumpDir = dirname(targetDir());
        cleanup.push(dumpDir);
        const file = join(dumpDir, 'engage.dump');
        // The delivery thread moves the journal's events into the outbox a moment after they are acknowledged: the dump is taken once it has.
        await until(async () => (await tableCounts({ url: source }))['webhook_journal'] === 0);
        // The drill's two commands, as docs/production-postgres.md gives them.
        await run('pg_dump', ['--format=custom', `--file=${file}`, source]);
        await server.stop();
        // The pages as a fresh process answers them from the source (a running one may show a room's last message time as it last read it).
        server = await spawnServer({ DATABASE_URL: source });
        const pages = await updatesPages(server.url, app, filled.roomid, filled.start);
        await server.stop();
        server = undefined;
        // Taken after the dump: the delivery thread logs its attempts (webhook_log) and empties the journal meanwhile.
        const settled = ({ webhook_log, webhook_journal, ...rest }: Record<string, number>) => rest;
        const counts = settled(await tableCounts({ url: source }));
        await run('pg_restore', ['--exit-on-error', '--single-transaction', '--no-owner', `--dbname=${target}`, file]);
        expect(settled(await tableCounts({ url: target }))).toEqual(counts);
        server = await spawnServer({ DATABASE_URL: target });
        expect(firstDifference(await updatesPages(server.url, app, filled.roomid, filled.start), pages)).toBeUndefined();
        const there = sameApp(app, server.url);
        expect((await there.api.post(`chat/rooms/${filled.roomid}/command`, { userid: filled.users[0], command: 'after the drill' })).status).toBe(200);
      } finally {
        await server?.stop();
      }
    }, 180_000);
  });
