/**
 * The reads a crowd makes when it opens a room screen or polls (a room, its standings, its comments), each at full load against a real
 * server process, beside the cheap poll (`updates` with a cursor at the head) measured in the same
 * run: server CPU per request (from the server process), and on Postgres the database's CPU per
 * request (its backends for the server's database), each as a ratio to the head poll's.
 *
 *   npm run bench:reads                                  # embedded database
 *   DATABASE_URL=postgres://.../db npm run bench:reads   # a database of its own (db_reads) next to it
 *   DURATION=10 BENCH_CONNECTIONS=32 HISTORY=2000 ROOMS=200 DATA_DIR=... BENCH_ROOT=... ...
 *   ACCEPT_ENCODING='gzip, deflate, br'   # what browsers and the SDKs' HTTP stacks send (the default); empty for none
 *
 * Rate limits are off: one token reads as the whole crowd would.
 */
import { readUpdatesCursor, updatesCursor } from '../src/chat/feed/cursor.js';
import { spawnServer } from '../test/helpers/spawn.js';
import { benchApp, type BenchApp } from './lib/app.js';
import { load, type LoadResult } from './lib/autocannon.js';
import { cpuSeconds, databaseCpuFrom } from './lib/cpu.js';
import { freshDatabase } from '../test/helpers/fresh-database.js';

const seconds = Number(process.env['DURATION'] ?? 10);
const connections = Number(process.env['BENCH_CONNECTIONS'] ?? 32);
const history = Number(process.env['HISTORY'] ?? 2000);
const roomCount = Number(process.env['ROOMS'] ?? 200);
const acceptEncoding = process.env['ACCEPT_ENCODING'] ?? 'gzip, deflate, br';
const out = (line: string) => process.stdout.write(`${line}\n`);

interface Measured {
  result: LoadResult;
  /** Server CPU µs per request. */
  cpu: number;
  /** Database backends' CPU µs per request (Postgres only). */
  dbCpu: number | undefined;
}

/** Fills the store: a room with `history` events by 100 users, `roomCount` more rooms for the lobby, a poll the 100 voted in, a conversation they each commented on. */
async function fill(app: BenchApp): Promise<{ room: string; customid: string; user: string; poll: string; conversation: string }> {
  const customid = 'bench-stadium';
  const room = (await app.call<{ id: string }>('POST', 'chat/rooms', { name: 'stadium', customid, enableenterandexit: false, enableprofanityfilter: false })).id;
  const users = Array.from({ length: 100 }, (_, i) => `fan${i}`);
  for (const userid of users) await app.call('POST', `chat/rooms/${room}/join`, { userid, displayname: `Fan ${userid}` });
  let next = 0;
  const worker = async () => {
    while (next < history) {
      const i = next++;
      await app.call('POST', `chat/rooms/${room}/command`, { userid: users[i % users.length], command: `message ${i}` });
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
  next = 0;
  const rooms = async () => {
    while (next < roomCount) await app.call('POST', 'chat/rooms', { name: `room ${next++}` });
  };
  await Promise.all(Array.from({ length: 8 }, rooms));
  const poll = (await app.call<{ id: string }>('POST', 'poll/poll/create', { title: 'Man of the match' })).id;
  const choices = await app.call<{ id: string }[]>('POST', `poll/poll/${poll}/choice`, { choices: ['Keeper', 'Defender', 'Striker'].map((title) => ({ title })) });
  await Promise.all(users.map((userid, i) => app.call('POST', `poll/poll/${poll}/response`, { userid, choiceid: choices[i % choices.length]?.id })));
  const conversation = 'bench-match-report';
  await app.call('POST', 'comment/conversations', { conversationid: conversation, property: 'bench', moderation: 'post' });
  for (const userid of users) await app.call('POST', `comment/conversations/${conversation}/comments`, { userid, displayname: `Fan ${userid}`, body: `comment by ${userid}` });
  return { room, customid, user: users[0] as string, poll, conversation };
}

const databaseUrl = await freshDatabase(process.env['DATABASE_URL'], 'reads');
// DATA_DIR: an embedded database made before (its first start is seconds of CPU, more on a busy machine).
const dataDir = process.env['DATA_DIR'];
// BENCH_ROOT: another checkout of the server (a commit before a change) to measure the same way.
const server = await spawnServer(
  {
    LOG_LEVEL: 'warn',
    RATE_LIMITS: 'off',
    ...(databaseUrl === undefined ? {} : { DATABASE_URL: databaseUrl }),
    ...(dataDir === undefined ? {} : { DATA_DIR: dataDir }),
  },
  undefined,
  process.env['BENCH_ROOT'],
);
try {
  const app = await benchApp(server.url);
  const headers: Record<string, string> = { 'x-api-token': app.token, ...(acceptEncoding === '' ? {} : { 'accept-encoding': acceptEncoding }) };
  const { room, customid, user, poll, conversation } = await fill(app);
  const head = (await app.call<{ cursor: string }>('GET', `chat/rooms/${room}/updates?limit=1`)).cursor;
  const behind = updatesCursor(Math.max(0, readUpdatesCursor(head) - 100));
  out(`database: ${databaseUrl === undefined ? 'embedded (PGlite)' : 'postgres'}; ${connections} connections; ${seconds} s per run; rate limits off; accept-encoding: ${acceptEncoding || 'none'}`);
  out(`store: a room of ${history} events by 100 users, ${roomCount + 1} rooms`);
  const pid = server.process.pid as number;
  const measure = async (path: string): Promise<Measured> => {
    const databaseCpu = await databaseCpuFrom(databaseUrl);
    const before = cpuSeconds(pid);
    const result = await load({ url: app.url(path), headers, connections, durationSeconds: seconds });
    const requests = Math.max(1, result.requestsPerSec * seconds);
    const dbCpu = databaseUrl === undefined ? undefined : ((await databaseCpu()) * 1e6) / requests;
    return { result, cpu: ((cpuSeconds(pid) - before) * 1e6) / requests, dbCpu };
  };
  const reads: [string, string][] = [
    ['updates, cursor at the head', `chat/rooms/${room}/updates?cursor=${head}`],
    ['updates without a cursor', `chat/rooms/${room}/updates`],
    ['updates without a cursor, as a user', `chat/rooms/${room}/updates?userid=${user}`],
    ['updates from a cursor 100 back', `chat/rooms/${room}/updates?cursor=${behind}`],
    ['room details', `chat/rooms/${room}`],
    ['room by custom id', `chat/roomsbycustomid/${customid}`],
    ['rooms list, limit 50', 'chat/rooms?limit=50'],
    ["rooms' counters (batch details)", `chat/rooms/batch/details?roomid=${room}&customid=${customid}&entity=numparticipants`],
    ['user profile', `user/users/${user}`],
    ['poll standings', `poll/poll/${poll}/standings`],
    ["a conversation's first comment page", `comment/conversations/${conversation}/comments`],
  ];
  let base: Measured | undefined;
  out(`${'read'.padEnd(38)} ${'req/s'.padStart(8)}  ${'non2xx'.padStart(6)}  server CPU/request  ×head${databaseUrl === undefined ? '' : '   database CPU/request  ×head'}`);
  for (const [name, path] of reads) {
    // Unmeasured first: compiling, the ring's and caches' first loads.
    await load({ url: app.url(path), headers, connections, durationSeconds: Math.min(3, seconds) });
    const m = await measure(path);
    base ??= m;
    const db = m.dbCpu === undefined || base.dbCpu === undefined ? '' : `   ${m.dbCpu.toFixed(0).padStart(10)} µs  ${(m.dbCpu / Math.max(1, base.dbCpu)).toFixed(2).padStart(9)}`;
    out(
      `${name.padEnd(38)} ${String(m.result.requestsPerSec).padStart(8)}  ${String(m.result.non2xx + m.result.errors).padStart(6)}  ${m.cpu.toFixed(0).padStart(14)} µs  ${(m.cpu / base.cpu).toFixed(2).padStart(5)}${db}`,
    );
  }
} finally {
  await server.stop();
}
