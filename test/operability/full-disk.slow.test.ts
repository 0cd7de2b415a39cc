import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { drain as readFrom, join as joinRoom, makeRoom } from '../chat/helpers.js';
import { Client, newApp, type TestApp } from '../helpers/api.js';
import { freshDataDir } from '../helpers/data-template.js';
import { privatePostgres } from '../helpers/private-postgres.js';
import { CAN_MOUNT, type SmallDisk, smallDisk } from '../helpers/small-disk.js';
import { type SpawnedServer, spawnServer } from '../helpers/spawn.js';
import { SseReader } from '../realtime/sse-reader.js';
import { connect } from '../realtime/ws-client.js';
import { eventually, startReceiver } from '../webhooks/receiver.js';

/**
 * Issue 56: the database's disk fills while writers post and a socket and an event stream listen.
 * Writes are then refused at once (507) and nothing else stops: reads, the socket, the stream,
 * /healthz (degraded, and why), /readyz (503). Space freed, writes succeed again within 5 s with
 * no restart, and everything acknowledged is there, once, live and at the webhook receiver;
 * nothing refused is. A server stopped, started and killed on a disk with no byte left comes up
 * serving reads. On the embedded default; on Postgres (when the suite runs on it) with its data
 * directory on the small disk, its WAL on a volume of its own (a WAL that cannot grow stops
 * Postgres itself, see docs/storage.md). A filesystem of its own takes root, as CI runs;
 * elsewhere these proofs are not registered.
 */
const onPostgres = (process.env['DATABASE_URL'] ?? '') !== '';
const RESERVE = 16 * 2 ** 20;
const WRITERS = 8;
/** Random letters: a body neither Postgres nor the filesystem can compress, so the disk fills as fast as posts arrive. */
const noise = () =>
  randomBytes(1500)
    .toString('base64')
    .replace(/[^a-z]/gi, 'x');

const cleanups: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** A small disk, removed after the file's tests. */
function diskOf(megabytes: number): SmallDisk {
  const disk = smallDisk(megabytes);
  cleanups.push(() => disk.remove());
  return disk;
}

/**
 * The database of the suite's mode with its data on `disk`, as the server's environment: the
 * embedded default in a directory there, or a private Postgres (its WAL on the machine's disk).
 */
async function databaseOn(disk: SmallDisk): Promise<Record<string, string>> {
  // The suite's template database, copied: a first start's initdb can outlast a start's patience on a busy machine.
  if (!onPostgres) return { DATABASE_URL: '', DATA_DIR: freshDataDir(disk.dir) };
  const data = join(disk.dir, 'pg');
  mkdirSync(data);
  const walDir = mkdtempSync(join(tmpdir(), 'full-disk-wal-'));
  cleanups.push(() => rmSync(walDir, { recursive: true, force: true }));
  const postgres = await privatePostgres(data, { walDir });
  cleanups.push(() => postgres.stop());
  return { DATABASE_URL: postgres.url };
}

async function serve(env: Record<string, string>): Promise<SpawnedServer> {
  // A node of its own: no Redis bus shared with the suite's other servers.
  const server = await spawnServer({ REDIS_URL: '', RATE_LIMITS: 'off', STORAGE_RESERVE: String(RESERVE), LOG_LEVEL: 'warn', ...env });
  cleanups.push(() => server.stop());
  return server;
}

interface Post {
  body: string;
  status: number;
  id?: string;
  ms: number;
}

/** A room with WRITERS joined users, a socket on it, a webhook receiver for its speech, and a poll. */
async function stage(server: SpawnedServer) {
  const app = await newApp({}, server.url);
  const room = (await makeRoom(app.api, { enableenterandexit: false, enableprofanityfilter: false })).id as string;
  const { eventscursor } = await joinRoom(app.api, room);
  const users = await Promise.all(Array.from({ length: WRITERS }, async () => (await joinRoom(app.api, room)).user.userid as string));
  const socket = await connect(server.url, app.appid, app.token);
  expect((await socket.subscribe(`room:${room}`))['type']).toBe('subscribed');
  const stream = await SseReader.open(`${server.url}/api/v3/${app.appid}/sse?topic=room:${room}&token=${app.token}`);
  cleanups.push(() => stream.close());
  expect(stream.status).toBe(200);
  const receiver = await startReceiver(() => 200);
  cleanups.push(() => receiver.close());
  expect((await app.api.post('webhook/hooks', { label: 'disk', url: receiver.url, enabled: true, type: 'postpublish', events: ['chatspeech'] })).status).toBe(200);
  const poll = (await app.api.post('poll/poll/create', { title: 'Full?' })).body.data;
  const choice = (await app.api.post(`poll/poll/${poll.id}/choice`, { choices: [{ title: 'yes' }] })).body.data[0].id as string;
  const liked = (await app.api.post(`chat/rooms/${room}/command`, { userid: users[0], command: 'like me' })).body.data.speech.id as string;
  return { app, room, cursor: eventscursor.cursor as string, users, socket, stream, receiver, poll: poll.id as string, choice, liked };
}

async function post(app: TestApp, room: string, userid: string, body: string): Promise<Post> {
  const started = performance.now();
  const res = await app.api.post(`chat/rooms/${room}/command`, { userid, command: body });
  return { body, status: res.status, id: res.body?.data?.speech?.id, ms: performance.now() - started };
}

interface Fill {
  posts: Post[];
  /** When the disk first had less than the reserve free, as the test saw it (performance.now()). */
  underReserveAt: number | undefined;
  /** When the first refusal was answered. */
  firstRefusedAt: number;
}

/** Writers post until the disk is full and some seconds past it, while the test watches the disk's free space. */
async function fillWithPosts(disk: SmallDisk, app: TestApp, room: string, users: string[], keepOnMs: number): Promise<Fill> {
  const posts: Post[] = [];
  let firstRefusedAt: number | undefined;
  let underReserveAt: number | undefined;
  const watch = setInterval(() => {
    if (underReserveAt === undefined && disk.free() < RESERVE) underReserveAt = performance.now();
  }, 20);
  const deadline = performance.now() + 120_000;
  try {
    await Promise.all(
      users.map(async (userid, w) => {
        for (let i = 0; (firstRefusedAt === undefined || performance.now() < firstRefusedAt + keepOnMs) && performance.now() < deadline; i++) {
          const p = await post(app, room, userid, `w${w}-${i} ${noise()}`);
          posts.push(p);
          if (p.status !== 507) continue;
          firstRefusedAt ??= performance.now();
          await new Promise((r) => setTimeout(r, 50));
        }
      }),
    );
  } finally {
    clearInterval(watch);
  }
  expect(firstRefusedAt, 'the disk never filled').toBeDefined();
  return { posts, underReserveAt, firstRefusedAt: firstRefusedAt as number };
}

/** What the full state looks like from outside: reads, socket, health, refusals of every kind of write. */
async function expectFullState(server: SpawnedServer, s: Awaited<ReturnType<typeof stage>>): Promise<void> {
  const { app, room } = s;
  const refused = await app.api.post(`chat/rooms/${room}/command`, { userid: s.users[0], command: 'refused' });
  expect(refused.status).toBe(507);
  expect(refused.body).toMatchObject({ code: 507, data: null });
  expect(refused.body.message).toMatch(/storage is full/);
  expect(refused.headers.get('retry-after')).toBe('5');
  // Batched writes follow the same rule.
  expect((await app.api.post(`chat/rooms/${room}/join`, { userid: 'latecomer', displayname: 'Late' })).status).toBe(507);
  expect((await app.api.post(`chat/rooms/${room}/events/${s.liked}/react`, { userid: s.users[1], reaction: 'like', reacted: true })).status).toBe(507);
  expect((await app.api.post(`poll/poll/${s.poll}/response`, { userid: s.users[1], choiceid: s.choice })).status).toBe(507);
  // Reads go on.
  expect((await app.api.get(`chat/rooms/${room}`)).status).toBe(200);
  expect((await app.api.get(`chat/rooms/${room}/updates`)).status).toBe(200);
  expect((await app.api.get(`poll/poll/${s.poll}/standings`)).status).toBe(200);
  expect((await app.api.post('chat/searchevents', { roomid: room, body: 'w0-1 ' })).status).toBe(200);
  const health = await fetch(`${server.url}/healthz`);
  expect(health.status).toBe(200);
  const h = await healthData(health);
  expect(h).toMatchObject({ alive: true, status: 'degraded', storage: 'degraded' });
  expect((h['reasons'] as string[]).join()).toMatch(/^storage full: /);
  const ready = await fetch(`${server.url}/readyz`);
  expect(ready.status).toBe(503);
  expect(await healthData(ready)).toMatchObject({ storage: false, database: true });
  const metrics = await (await fetch(`${server.url}/metrics`)).text();
  expect(metrics).toMatch(/^engage_storage_full 1$/m);
  expect(s.socket.socket.readyState).toBe(s.socket.socket.OPEN);
  const streamEnded = await Promise.race([s.stream.ended().then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 200))]);
  expect(streamEnded).toBe(false);
}

/** Frees the disk's space; resolves with the milliseconds until a post succeeds again. */
async function recover(disk: SmallDisk, app: TestApp, room: string, userid: string): Promise<{ ms: number; id: string }> {
  disk.freeUp();
  const freed = performance.now();
  for (;;) {
    const p = await post(app, room, userid, `after ${noise()}`);
    if (p.status === 200) return { ms: performance.now() - freed, id: p.id as string };
    expect(p.status).toBe(507);
    expect(performance.now() - freed).toBeLessThan(10_000);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Every acknowledged post is stored once, delivered live once and to the webhook; no refused one is, anywhere. */
async function expectNothingLost(server: SpawnedServer, s: Awaited<ReturnType<typeof stage>>, acknowledged: string[], refusedBodies: Set<string>): Promise<void> {
  const events = ((await readFrom(new Client(server.url, s.app.appid, s.app.token), s.room, s.cursor)).events as StoredEvent[]).filter((e) => e.eventtype === 'speech');
  const stored = events.map((e) => e.id);
  expect(new Set(stored).size).toBe(stored.length);
  expect(acknowledged.filter((id) => !stored.includes(id))).toEqual([]);
  expect(events.filter((e) => refusedBodies.has(e.body))).toEqual([]);
  const live = await s.socket.collect((f) => f['type'] === 'event' && f['data']?.eventtype === 'speech', acknowledged.length, 15_000);
  const liveIds = live.map((f) => f['data'].id as string);
  expect(new Set(liveIds).size).toBe(liveIds.length);
  expect(acknowledged.filter((id) => !liveIds.includes(id))).toEqual([]);
  // The event stream too, open through it all.
  await eventually(
    () => Promise.resolve(s.stream.events.map((e) => JSON.parse(e.data) as { id: string; eventtype: string })),
    (streamed) => acknowledged.every((id) => streamed.some((e) => e.id === id)),
    15_000,
  );
  const streamedIds = s.stream.events
    .map((e) => JSON.parse(e.data) as { id: string; eventtype: string })
    .filter((e) => e.eventtype === 'speech')
    .map((e) => e.id);
  expect(new Set(streamedIds).size).toBe(streamedIds.length);
  await eventually(
    () => Promise.resolve(s.receiver.received),
    (received) => acknowledged.every((id) => received.some((r) => r.body.data['id'] === id)),
    30_000,
  );
  expect(s.receiver.received.filter((r) => refusedBodies.has(r.body.data['body'] as string))).toEqual([]);
}

/** What the test reads of a stored chat event. */
interface StoredEvent {
  id: string;
  eventtype: string;
  body: string;
}

/** The ids of a room's events from `cursor` on, as `updates` pages them. */
async function storedIds(api: Client, room: string, cursor: string): Promise<string[]> {
  return ((await readFrom(api, room, cursor)).events as StoredEvent[]).map((e) => e.id);
}

/** The `data` of an envelope a health route answered. */
const healthData = async (res: Response): Promise<Record<string, unknown>> => ((await res.json()) as { data: Record<string, unknown> }).data;

const lines = (server: SpawnedServer, message: string) =>
  server
    .stdout()
    .split('\n')
    .filter((line) => line.includes(message)).length;

describe.runIf(CAN_MOUNT)(`the database's disk fills (${onPostgres ? 'Postgres' : 'embedded'})`, () => {
  const fillThroughRecovery = async (server: SpawnedServer, disk: SmallDisk, leaveBytes: number) => {
    const s = await stage(server);
    disk.fillTo(leaveBytes);
    const fill = await fillWithPosts(disk, s.app, s.room, s.users, 2000);
    const { posts } = fill;
    // Answered, every one: a full disk is not a wedge. A refusal comes at once, and (embedded,
    // where the reserve is watched) within a second of the disk going under the reserve.
    expect(posts.filter((p) => p.status !== 200 && p.status !== 507)).toEqual([]);
    const slowest = Math.max(...posts.map((p) => p.ms));
    expect(slowest).toBeLessThan(5000);
    expect(Math.max(...posts.filter((p) => p.status === 507).map((p) => p.ms))).toBeLessThan(1000);
    if (!onPostgres) expect(fill.firstRefusedAt - (fill.underReserveAt as number)).toBeLessThan(1000);
    await expectFullState(server, s);
    const recovered = await recover(disk, s.app, s.room, s.users[0] as string);
    expect(recovered.ms).toBeLessThan(5000);
    expect((await s.app.api.post(`poll/poll/${s.poll}/response`, { userid: s.users[1], choiceid: s.choice })).status).toBe(200);
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
    const acknowledged = [...posts.filter((p) => p.status === 200).map((p) => p.id as string), recovered.id];
    await expectNothingLost(server, s, acknowledged, new Set(posts.filter((p) => p.status === 507).map((p) => p.body)));
    // One line as the state began, one as it ended (out within the logger's half-second flush).
    await eventually(
      () => Promise.resolve(lines(server, 'storage has room again')),
      (n) => n > 0,
      3000,
    );
    expect(lines(server, 'storage full: writes are refused')).toBe(1);
    expect(lines(server, 'storage has room again')).toBe(1);
    console.log(
      `${onPostgres ? 'Postgres' : 'embedded'}: ${acknowledged.length} posts acknowledged, ${posts.filter((p) => p.status === 507).length} refused` +
        `${onPostgres ? '' : `, the first ${Math.round(fill.firstRefusedAt - (fill.underReserveAt as number))} ms after the disk went under the reserve`}` +
        ` (slowest answer ${Math.round(slowest)} ms); writes back ${Math.round(recovered.ms)} ms after space was freed`,
    );
  };

  it(`${onPostgres ? 'Postgres, its data directory on' : 'embedded, its data directory on'} a small disk: refused at once, reads, the socket and the stream go on, back within 5 s of space freed, nothing acknowledged lost`, {
    timeout: 240_000,
  }, async () => {
    const disk = diskOf(300);
    const server = await serve(await databaseOn(disk));
    // Embedded, the writers fill what is left above the reserve; Postgres takes its disk to the last byte.
    await fillThroughRecovery(server, disk, onPostgres ? 12 * 2 ** 20 : 48 * 2 ** 20);
  });

  if (!onPostgres)
    it('embedded, no reserve: a PANIC when the WAL cannot grow ends the process at once (no spin); started again it has every acknowledged post', { timeout: 240_000 }, async () => {
      const disk = diskOf(200);
      const env = { DATABASE_URL: '', DATA_DIR: freshDataDir(disk.dir), STORAGE_RESERVE: '1kb' };
      const server = await serve(env);
      const s = await stage(server);
      // Less than a WAL segment (16 MB) left: the next one cannot be made.
      disk.fillTo(12 * 2 ** 20);
      const exited = new Promise<number | null>((resolve) => server.process.once('exit', (code) => resolve(code)));
      const acknowledged: string[] = [];
      let over = false;
      void exited.then(() => (over = true));
      await Promise.all(
        s.users.map(async (userid, w) => {
          for (let i = 0; !over; i++) {
            // A request the process never answers fails when it exits; none may hang while it lives.
            const p = await post(s.app, s.room, userid, `w${w}-${i} ${noise()}`).catch(() => undefined);
            if (p?.status === 200) acknowledged.push(p.id as string);
            expect(p === undefined || p.status === 200 || p.status === 507).toBe(true);
            if (p?.status === 507) await new Promise((r) => setTimeout(r, 50));
          }
        }),
      );
      expect(await exited).toBe(1);
      // Its end was the point: the stop after the tests is not to report it.
      await server.kill('SIGKILL');
      expect(server.output()).toMatch(/The embedded database aborted \(a Postgres PANIC: could not write to file \\"pg_wal\/xlogtemp/);
      disk.freeUp();
      const again = await serve({ ...env, PORT: String(server.port) });
      const stored = await storedIds(new Client(again.url, s.app.appid, s.app.token), s.room, s.cursor);
      expect(acknowledged.length).toBeGreaterThan(0);
      expect(acknowledged.filter((id) => !stored.includes(id))).toEqual([]);
    });

  it(`${onPostgres ? 'Postgres' : 'embedded'}: stops with SIGTERM on a full disk, starts again on it (after a kill -9 too) serving reads, and takes writes once space is freed`, {
    timeout: 240_000,
  }, async () => {
    const disk = diskOf(200);
    const env = await databaseOn(disk);
    const reserveFile = onPostgres ? undefined : join(env['DATA_DIR'] as string, 'engage-reserve');
    let server = await serve(env);
    const app = await newApp({}, server.url);
    const room = (await makeRoom(app.api, { enableenterandexit: false, enableprofanityfilter: false })).id as string;
    const { eventscursor } = await joinRoom(app.api, room);
    const { userid } = (await joinRoom(app.api, room)).user;
    const acknowledged: string[] = [];
    for (let i = 0; i < 50; i++) acknowledged.push((await post(app, room, userid, `before ${i} ${noise()}`)).id as string);
    if (reserveFile !== undefined) expect(statSync(reserveFile).size).toBe(RESERVE);
    // Something else takes every byte left.
    disk.fillTo(0);
    await eventually(
      () => app.api.post(`chat/rooms/${room}/command`, { userid, command: 'refused' }),
      (r) => r.status === 507,
      5000,
    );
    const stopped = new Promise<number | null>((resolve) => server.process.once('exit', (code) => resolve(code)));
    await server.kill('SIGTERM');
    expect(await stopped).toBe(0);

    const reads = async (running: SpawnedServer) => {
      const api = new Client(running.url, app.appid, app.token);
      const stored = await storedIds(api, room, eventscursor.cursor);
      expect(acknowledged.filter((id) => !stored.includes(id))).toEqual([]);
      expect((await api.post(`chat/rooms/${room}/command`, { userid, command: 'still refused' })).status).toBe(507);
      expect((await healthData(await fetch(`${running.url}/healthz`)))['storage']).toBe('degraded');
      expect((await fetch(`${running.url}/readyz`)).status).toBe(503);
      return api;
    };
    // Embedded, the start gives the reserve back to the database; on either it refuses writes.
    server = await serve({ ...env, PORT: String(server.port) });
    await reads(server);
    if (reserveFile !== undefined) {
      const started = server;
      await eventually(
        () => Promise.resolve(lines(started, 'starting on a full disk')),
        (n) => n === 1,
        3000,
      );
    }
    await server.kill('SIGKILL');
    server = await serve({ ...env, PORT: String(server.port) });
    const api = await reads(server);

    disk.freeUp();
    const freed = performance.now();
    const back = await eventually(
      () => api.post(`chat/rooms/${room}/command`, { userid, command: 'back' }),
      (r) => r.status === 200,
      10_000,
    );
    expect(performance.now() - freed).toBeLessThan(5000);
    acknowledged.push(back.body.data.speech.id);
    // The reserve is held again.
    if (reserveFile !== undefined) expect(statSync(reserveFile).size).toBe(RESERVE);
    const stored = await storedIds(api, room, eventscursor.cursor);
    expect(acknowledged.filter((id) => !stored.includes(id))).toEqual([]);
  });
});
