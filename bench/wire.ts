/**
 * What a live match costs on the wire (npm run bench:wire): bytes on the TCP connection per
 * delivered event (WebSocket framing included) for engage-client's mode (compact frames, deflated
 * batches) and for a plain client, in two streams: many authors (each post by a different user with
 * a picture and a profile URL, as in a stadium) and few authors (10 in turn, as in a commentary
 * feed); the bytes of a catch-up 1,500 events behind; an `updates` page's bytes, plain and gzipped;
 * the server's CPU per delivery for each mode (and for today's server, BENCH_ROOT); the cost of
 * permessage-deflate on bare uWS for the same frames; and the egress of a 90-minute match.
 *
 *   npm run bench:wire
 *   BENCH_ROOT=/path/to/a/checkout/of/main npm run bench:wire     # CPU per delivery against today's server, same run
 *   EVENTS=2000 SOCKETS=3000 CPU_EVENTS=300 npm run bench:wire
 *
 * Each figure's events are read back by every socket (a compact one with engage-client's decoder)
 * and checked against the plain socket's: the run fails (exit 1) if any differs.
 */
import { get as httpGet } from 'node:http';
import { isDeepStrictEqual } from 'node:util';
import { BUILT, spawnServer, type SpawnedServer } from '../test/helpers/spawn.js';
import { benchApp, type BenchApp } from './lib/app.js';
import { catchUpBytes, cpuPerDelivery, deflateCost } from './lib/wire-costs.js';
import { message, person } from './lib/wire-people.js';
import { type Mode, WireSocket } from './lib/wire-socket.js';

const EVENTS = Number(process.env['EVENTS'] ?? 2000);
const CATCH_UP = Math.min(Number(process.env['CATCH_UP'] ?? 1500), EVENTS);
const FEW = 10;
const BENCH_ROOT = process.env['BENCH_ROOT'];
const say = (line: string) => process.stdout.write(`${line}\n`);
const BODY_LENGTH = 70;

interface Stream {
  name: string;
  authors: string[];
  roomid: string;
  /** The cursor before the stream's last CATCH_UP events. */
  behind: string;
  perEvent: Record<Mode, number>;
  catchUp: Record<Mode, number>;
}

/** `count` users with a handle, a display name, a picture and a profile URL (varied as real ones are), joined to the room. */
async function users(app: BenchApp, roomid: string, count: number): Promise<string[]> {
  const people = Array.from({ length: count }, () => person());
  let next = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < people.length) {
        const { userid, ...profile } = people[next++] as ReturnType<typeof person>;
        await app.call('POST', `user/users/${userid}`, profile);
        await app.call('POST', `chat/rooms/${roomid}/join`, { userid });
      }
    }),
  );
  return people.map((p) => p.userid);
}

/** Posts EVENTS messages (author i takes turn i), 16 at a time; returns the cursor before the last CATCH_UP. */
async function post(app: BenchApp, roomid: string, authors: string[]): Promise<string> {
  let next = 0;
  let behind = '';
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < EVENTS) {
        const i = next++;
        if (i === EVENTS - CATCH_UP) behind = (await app.call<{ cursor: string }>('GET', `chat/rooms/${roomid}/updates?limit=1`)).cursor;
        await app.call('POST', `chat/rooms/${roomid}/command`, { userid: authors[i % authors.length], command: message(BODY_LENGTH) });
      }
    }),
  );
  return behind;
}

function sameEvents(a: WireSocket, b: WireSocket, what: string): void {
  if (a.events.length !== b.events.length || !a.events.every((e, i) => isDeepStrictEqual(e, b.events[i]))) {
    say(`FAIL: ${what}: the ${a.mode} and ${b.mode} sockets read different events`);
    process.exitCode = 1;
  }
}

async function stream(server: SpawnedServer, app: BenchApp, name: string, authorCount: number): Promise<Stream> {
  const roomid = (await app.call<{ id: string }>('POST', 'chat/rooms', { name, enableenterandexit: false, enableprofanityfilter: false })).id;
  const authors = await users(app, roomid, authorCount);
  const sockets = { plain: await WireSocket.open(server.url, app.appid, app.token, 'plain'), compact: await WireSocket.open(server.url, app.appid, app.token, 'compact') };
  for (const s of Object.values(sockets)) s.send({ type: 'subscribe', topic: `room:${roomid}` });
  await new Promise((r) => setTimeout(r, 500));
  for (const s of Object.values(sockets)) s.mark();
  const behind = await post(app, roomid, authors);
  await Promise.all(Object.values(sockets).map((s) => s.until(EVENTS)));
  sameEvents(sockets.plain, sockets.compact, `${name}, live`);
  const perEvent = { plain: sockets.plain.bytes / EVENTS, compact: sockets.compact.bytes / EVENTS };
  for (const s of Object.values(sockets)) s.close();
  const catchUp = await catchUpBytes(server, app, roomid, behind, CATCH_UP, sameEvents);
  return { name, authors, roomid, behind, perEvent, catchUp };
}

/** An `updates` page's body as sent (node:http does not inflate it), plain and asked gzipped. */
async function updatesPage(app: BenchApp, roomid: string, cursor: string): Promise<{ plain: number; gzip: number }> {
  const get = (encoding: string) =>
    new Promise<number>((resolve, reject) => {
      const request = httpGet(app.url(`chat/rooms/${roomid}/updates?cursor=${cursor}&limit=100`), { headers: { 'x-api-token': app.token, 'accept-encoding': encoding } }, (res) => {
        let bytes = 0;
        res.on('data', (chunk: Buffer) => (bytes += chunk.length));
        res.on('end', () => resolve(bytes));
      });
      request.on('error', reject);
    });
  return { plain: await get('identity'), gzip: await get('gzip') };
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
const tb = (bytesPerEvent: number) => ((bytesPerEvent * 20 * 5400 * 50_000) / 1e12).toFixed(2);

const server = await spawnServer({ RATE_LIMITS: 'off', LOG_LEVEL: 'error', WS_MAX_CONNECTIONS_PER_ADDRESS: '1000000' }, BUILT);
try {
  const app = await benchApp(server.url);
  say(`bench:wire: ${EVENTS} events per stream, ${BODY_LENGTH}-character messages of random words, embedded default`);
  const many = await stream(server, app, 'many authors', EVENTS);
  const few = await stream(server, app, 'few authors', FEW);
  say('\nbytes on the TCP connection per delivered event (WebSocket framing included)');
  say('| stream | plain client | engage-client (compact) | ratio |');
  say('|---|---|---|---|');
  for (const s of [many, few]) say(`| ${s.name} | ${s.perEvent.plain.toFixed(0)} | ${s.perEvent.compact.toFixed(0)} | ${(s.perEvent.compact / s.perEvent.plain).toFixed(3)} |`);
  say(`\ncatch-up of ${CATCH_UP} missed events (subscribe with a cursor; replayed from the feed)`);
  say('| stream | plain client | engage-client (deflated batches) | ratio |');
  say('|---|---|---|---|');
  for (const s of [many, few]) say(`| ${s.name} | ${kb(s.catchUp.plain)} | ${kb(s.catchUp.compact)} | ${(s.catchUp.compact / s.catchUp.plain).toFixed(3)} |`);
  const page = await updatesPage(app, many.roomid, many.behind);
  say(`\n\`updates\` page of 100 events (many authors): ${page.plain} bytes plain, ${page.gzip} gzipped (${(page.gzip / 100).toFixed(0)} bytes per event)`);
  say('\negress of a 90-minute match, 50,000 fans, 20 posts/s (TB)');
  say('| stream | plain client | engage-client |');
  say('|---|---|---|');
  for (const s of [many, few]) say(`| ${s.name} | ${tb(s.perEvent.plain)} | ${tb(s.perEvent.compact)} |`);
  say('\nserver CPU per delivery (live, one room, many authors)');
  const cpu = await cpuPerDelivery(server, app, many.authors, BENCH_ROOT);
  say('| server | sockets | µs per delivery |');
  say('|---|---|---|');
  for (const row of cpu) say(`| ${row.name} | ${row.sockets} | ${row.micros.toFixed(2)} |`);
  const deflate = await deflateCost(Math.round(many.perEvent.compact));
  say(
    `\npermessage-deflate on bare uWS (SHARED_COMPRESSOR, a ${Math.round(many.perEvent.compact)}-byte frame, ${deflate.sockets} sockets): ${deflate.off.toFixed(2)} µs per delivery without, ${deflate.on.toFixed(2)} with (${(deflate.on / deflate.off).toFixed(2)}×)`,
  );
} finally {
  await server.stop();
}
