import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { LiveClient, type LiveConfig } from '../../client/dist/index.js';
import { feedAfter, gaps, post, Received, until } from '../client/stream.js';
import { newApp, type TestApp } from '../helpers/api.js';
import { freshDataDir } from '../helpers/data-template.js';
import { dropDatabase, freshDatabase } from '../helpers/fresh-database.js';
import { spawnServer, type SpawnedServer } from '../helpers/spawn.js';
import { expectEveryKindFilled, type Filled, fill, firstDifference, removeAll, runCommand, sameApp, tableCounts, targetDir, updatesPages } from './helpers.js';

/**
 * `npm run move` from the embedded default (its server stopped) into PostgreSQL, as an operator
 * outgrowing one machine does (into another embedded directory when the suite has no
 * PostgreSQL), then back: every table's rows, the same updates pages from every old cursor, old
 * tokens, and an engage-client that was connected before the move resumes after it on the new
 * server with no gap and no repeat.
 */
const databaseUrl = process.env['DATABASE_URL'];
const EMBEDDED = { DATABASE_URL: '' };
const sourceDir = freshDataDir();
let target: { url: string } | { dir: string };
let server: SpawnedServer | undefined;
let app: TestApp;
let filled: Filled;
let client: LiveClient | undefined;
let backDir: string | undefined;

beforeAll(async () => {
  const url = await freshDatabase(databaseUrl, 'move_target');
  target = url === undefined ? { dir: targetDir() } : { url };
  server = await spawnServer({ ...EMBEDDED, DATA_DIR: sourceDir, RATE_LIMIT_CHAT: '1000000/10s' });
  app = await newApp({}, server.url);
  filled = await fill(app);
}, 120_000);

afterAll(async () => {
  client?.close();
  await server?.stop();
  if ('url' in target) await dropDatabase(target.url);
  removeAll(sourceDir, 'dir' in target ? target.dir : undefined, backDir);
});

const targetEnv = () => ('url' in target ? { DATABASE_URL: target.url } : { ...EMBEDDED, DATA_DIR: target.dir });
const targetArg = () => ('url' in target ? target.url : target.dir);

describe('npm run move from the embedded default', () => {
  it('is refused while the embedded server runs, with nothing changed', async () => {
    const refused = await runCommand('move', ['--to', targetArg()], { ...EMBEDDED, DATA_DIR: sourceDir });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/in use by another running server.*Stop it first/s);
    expect(await tableCounts(target)).toEqual({});
  });

  it('carries every table, keeps every cursor and token, and an engage-client resumes across it without gap or repeat', async () => {
    const live = new LiveClient({
      appId: app.appid,
      apiToken: app.token,
      endpoint: `${(server as SpawnedServer).url}/api/v3`,
      WebSocket: WebSocket as unknown as LiveConfig['WebSocket'],
      reconnectDelayMs: 50,
      maxReconnectDelayMs: 500,
    });
    client = live;
    const received = new Received();
    live.subscribe(`room:${filled.roomid}`, { cursor: filled.start, onEvent: received.onEvent });
    await until(() => live.state === 'connected', 10_000, 'connected');
    await post(app.api, filled.roomid, filled.users, 'before the move ', 20);
    const before = await feedAfter(app.api, filled.roomid, filled.start);
    await until(() => received.events.length >= before.length, 10_000, `${before.length} events live`);
    // The pages as a fresh process answers them (nothing of them remembered from the live replay above).
    const port = (server as SpawnedServer).port;
    await (server as SpawnedServer).stop();
    server = await spawnServer({ ...EMBEDDED, DATA_DIR: sourceDir, PORT: String(port) });
    const pagesBefore = await updatesPages(server.url, app, filled.roomid, filled.start);
    await server.stop();
    server = undefined;
    const counts = await tableCounts({ dir: sourceDir });
    expectEveryKindFilled(counts);

    const moved = await runCommand('move', ['--to', targetArg()], { ...EMBEDDED, DATA_DIR: sourceDir });
    expect(moved.code).toBe(0);
    expect(moved.stderr).toMatch(/move: done: [\d,]+ rows/);
    expect(await tableCounts(target)).toEqual(counts);

    // The new server where the old one was: the client reconnects to the same address.
    server = await spawnServer({ ...targetEnv(), PORT: String(port), RATE_LIMIT_CHAT: '1000000/10s' });
    const there = sameApp(app, server.url);
    // Every REST cursor taken before (each page's) gives the same pages, byte for byte, with the old token.
    expect(firstDifference(await updatesPages(server.url, app, filled.roomid, filled.start), pagesBefore)).toBeUndefined();
    await post(there.api, filled.roomid, filled.users, 'after the move ', 20);
    const expected = await feedAfter(there.api, filled.roomid, filled.start);
    expect(expected).toHaveLength(before.length + 20);
    await until(() => received.events.length >= expected.length, 30_000, `${expected.length} events (have ${received.events.length})`);
    const got = received.ids();
    expect({ gaps: gaps(expected, got), repeats: received.repeats(), outOfOrder: received.outOfOrder() }).toEqual({ gaps: 0, repeats: 0, outOfOrder: 0 });
    expect(got).toEqual(expected);
  }, 240_000);

  it('goes back the same way (PostgreSQL into an embedded directory: a developer’s copy of production)', async () => {
    await server?.stop();
    server = undefined;
    const counts = await tableCounts(target);
    backDir = targetDir();
    const back = await runCommand('move', ['--from', targetArg(), '--to', backDir], EMBEDDED);
    expect(back.code).toBe(0);
    expect(await tableCounts({ dir: backDir })).toEqual(counts);
  }, 120_000);
});
