/**
 * Crowd writes beside chat posts, on the built server with rate limits off: the kickoff (FANS new
 * fans join one room), the goal (every fan likes one event), the hot take (every fan up-votes
 * one comment) and the final whistle (every fan leaves). Each crowd write is sent in ROUNDS
 * slices, every slice between two phases of chat posts, and its ratio to a post is the median over
 * its slices of the slice's CPU per request to the mean of the two post phases around it: on a
 * shared machine whose speed drifts within a run, both sides of each ratio drift alike. Before
 * anything is counted, the server warms up (its JIT, its prepared statements, the first pages of
 * its tables) on a phase of posts and on each write once, by other fans in another room. Prints,
 * per write, server CPU per request, requests/s, p50/p99 and that ratio, then checks the counts
 * the crowd left (inroom, like count, up-votes).
 *
 *   npm run bench:crowd                                       # embedded, this checkout
 *   DATABASE_URL=postgres://… npm run bench:crowd             # Postgres (one fresh database per checkout)
 *   CHECKOUTS=before=/path/to/old/checkout,after=. npm run bench:crowd   # before/after, each built (npm run build)
 *   FANS=3000 CONNECTIONS=32 ROUNDS=3
 */
import { BUILT, spawnServer, type SpawnedServer } from '../test/helpers/spawn.js';
import { benchApp, type BenchApp } from './lib/app.js';
import { load } from './lib/autocannon.js';
import { cpuSeconds, postgresCpuSeconds } from './lib/cpu.js';
import { freshDatabase } from '../test/helpers/fresh-database.js';
import { joinSpeakers } from './lib/limits.js';
import { checkoutsFromEnv } from './lib/checkouts.js';

const fans = Number(process.env['FANS'] ?? 3000);
const connections = Number(process.env['CONNECTIONS'] ?? 32);
const rounds = Math.max(1, Number(process.env['ROUNDS'] ?? 3));
const databaseUrl = process.env['DATABASE_URL'];
const checkouts = checkoutsFromEnv();

interface Phase {
  name: string;
  cpuUs: number;
  dbCpuUs: number;
  requestsPerSec: number;
  p50: number;
  p99: number;
  failed: number;
  seconds: number;
  answered: number;
}

/** The requests, one body each, sent `connections` at a time; the server's and the database's CPU per request. */
async function phase(server: SpawnedServer, name: string, url: string, token: string, bodies: string[]): Promise<Phase> {
  const pid = server.process.pid as number;
  // Each phase starts with the garbage of the last one collected, so that none pays for another's.
  process.kill(pid, 'SIGUSR2');
  await new Promise((resolve) => setTimeout(resolve, 300));
  const before = cpuSeconds(pid);
  const dbBefore = databaseUrl === undefined ? 0 : postgresCpuSeconds();
  let next = 0;
  const started = performance.now();
  let failed = 0;
  // autocannon notices that its `amount` was reached on its next one-second tick: time the phase to its last answer.
  let lastAnswer = started;
  const result = await load({
    url,
    method: 'POST',
    headers: { 'x-api-token': token },
    connections,
    durationSeconds: 600,
    requests: [
      {
        setupRequest: (req) => ({ ...req, body: bodies[next++ % bodies.length] }),
        onResponse: (status) => {
          lastAnswer = performance.now();
          if (status !== 200) failed += 1;
        },
      },
    ],
    amount: bodies.length,
  });
  const seconds = (lastAnswer - started) / 1000;
  const answered = Math.max(1, result.answered);
  return {
    name,
    cpuUs: ((cpuSeconds(pid) - before) * 1e6) / answered,
    dbCpuUs: databaseUrl === undefined ? 0 : ((postgresCpuSeconds() - dbBefore) * 1e6) / answered,
    requestsPerSec: Math.round(answered / seconds),
    p50: result.p50,
    p99: result.p99,
    failed: failed + result.errors,
    seconds,
    answered,
  };
}

/** The server collects its garbage on SIGUSR2 (lib/gc-on-signal.mjs). */
const COLLECTABLE = ['--import', new URL('./lib/gc-on-signal.mjs', import.meta.url).pathname];

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

/** Where a crowd writes: a room with its speakers and their goal event, a conversation with its hot take. */
interface Venue {
  roomId: string;
  speakers: string[];
  eventId: string;
  conversationid: string;
  commentId: string;
}

async function venue(app: BenchApp, checkout: string, name: string): Promise<Venue> {
  const room = await app.call<{ id: string }>('POST', 'chat/rooms', { name, enableenterandexit: false });
  const speakers = await joinSpeakers(app, room.id, 200);
  const goal = await app.call<{ speech: { id: string } }>('POST', `chat/rooms/${room.id}/command`, { userid: speakers[0], command: 'GOAL!' });
  const conversationid = `bench-${checkout}-${name}`;
  await app.call('POST', 'comment/conversations', { conversationid, property: 'bench', moderation: 'post' });
  const take = await app.call<{ id: string }>('POST', `comment/conversations/${conversationid}/comments`, { userid: speakers[0], body: 'hot take' });
  return { roomId: room.id, speakers, eventId: goal.speech.id, conversationid, commentId: take.id };
}

const fanIds = (prefix: string, count: number) => Array.from({ length: count }, (_, i) => `${prefix}${i}`);

const KICKOFF = 'kickoff: join';

/** The kickoff, the goal, the hot take and the final whistle of `fans` at `where`, in that order. */
function crowdWrites(where: Venue, fans: string[]): { name: string; path: string; bodies: string[] }[] {
  return [
    { name: KICKOFF, path: `chat/rooms/${where.roomId}/join`, bodies: fans.map((userid) => JSON.stringify({ userid, displayname: `Fan ${userid}` })) },
    { name: 'goal: like', path: `chat/rooms/${where.roomId}/events/${where.eventId}/react`, bodies: fans.map((userid) => JSON.stringify({ userid, reaction: 'like', reacted: true })) },
    {
      name: 'hot take: up-vote',
      path: `comment/conversations/${where.conversationid}/comments/${where.commentId}/vote`,
      bodies: fans.map((userid) => JSON.stringify({ userid, vote: 'up' })),
    },
    { name: 'final whistle: exit', path: `chat/rooms/${where.roomId}/exit`, bodies: fans.map((userid) => JSON.stringify({ userid })) },
  ];
}

async function run(checkout: { name: string; root: string }): Promise<void> {
  const url = await freshDatabase(databaseUrl, `bench_${checkout.name}`);
  const server = await spawnServer({ RATE_LIMITS: 'off', ...(url === undefined ? {} : { DATABASE_URL: url }) }, [...COLLECTABLE, ...BUILT], checkout.root);
  try {
    const app = await benchApp(server.url);
    const stadium = await venue(app, checkout.name, 'stadium');
    // The writes are warmed up as the posts are: once each, uncounted, by other fans in another room.
    const warmUp = await venue(app, checkout.name, 'warm-up');
    const postUrl = app.url(`chat/rooms/${stadium.roomId}/command`);
    const posts = (count: number) => Array.from({ length: count }, (_, i) => JSON.stringify({ userid: stadium.speakers[i % stadium.speakers.length], command: 'what a match' }));
    const sliceSize = Math.ceil(fans / rounds);
    await phase(server, 'warm-up', postUrl, app.token, posts(sliceSize));
    for (const w of crowdWrites(warmUp, fanIds('warm-up', Math.min(sliceSize, 1000)))) await phase(server, 'warm-up', app.url(w.path), app.token, w.bodies);
    const postPhases: Phase[] = [await phase(server, 'chat post', postUrl, app.token, posts(sliceSize))];
    const writes: Crowd[] = [];
    let inRoomAfterKickoff = 0;
    for (const { name, path, bodies } of crowdWrites(stadium, fanIds('fan', fans))) {
      const slices: Slice[] = [];
      // The crowd's requests in `rounds` slices, each followed by a phase of as many chat posts.
      for (let r = 0; r < rounds; r++) {
        const slice = bodies.slice(Math.floor((r * bodies.length) / rounds), Math.floor(((r + 1) * bodies.length) / rounds));
        const before = postPhases[postPhases.length - 1] as Phase;
        const write = await phase(server, name, app.url(path), app.token, slice);
        const after = await phase(server, 'chat post', postUrl, app.token, posts(slice.length));
        postPhases.push(after);
        slices.push({ write, ratio: write.cpuUs / ((before.cpuUs + after.cpuUs) / 2) });
      }
      writes.push({ name, slices });
      if (name === KICKOFF) inRoomAfterKickoff = (await app.call<{ inroom: number }>('GET', `chat/rooms/${stadium.roomId}`)).inroom;
    }
    report(checkout.name, postPhases, writes);
    await checkCounts(app, stadium, inRoomAfterKickoff);
  } finally {
    await server.stop();
  }
}

interface Slice {
  write: Phase;
  /** The slice's CPU per request to the mean of the post phases before and after it. */
  ratio: number;
}

interface Crowd {
  name: string;
  slices: Slice[];
}

/** Phases of one kind taken together: median CPU and p50, the rate over their whole time, the worst p99, every failure. */
function combined(name: string, phases: Phase[]): Phase {
  const seconds = phases.reduce((sum, p) => sum + p.seconds, 0);
  const answered = phases.reduce((sum, p) => sum + p.answered, 0);
  return {
    name,
    cpuUs: median(phases.map((p) => p.cpuUs)),
    dbCpuUs: median(phases.map((p) => p.dbCpuUs)),
    requestsPerSec: Math.round(answered / seconds),
    p50: median(phases.map((p) => p.p50)),
    p99: Math.max(...phases.map((p) => p.p99)),
    failed: phases.reduce((sum, p) => sum + p.failed, 0),
    seconds,
    answered,
  };
}

function report(name: string, postPhases: Phase[], writes: Crowd[]): void {
  const rows = [
    { phase: combined('chat post', postPhases), ratio: 1, slices: [] as Slice[] },
    ...writes.map(({ name, slices }) => ({
      phase: combined(
        name,
        slices.map((s) => s.write),
      ),
      ratio: median(slices.map((s) => s.ratio)),
      slices,
    })),
  ];
  const db = databaseUrl === undefined ? '' : '  db CPU µs/req';
  process.stdout.write(`\n${name} (${databaseUrl === undefined ? 'embedded' : 'postgres'}, ${fans} fans in ${rounds} slices, ${connections} in flight)\n`);
  process.stdout.write(`phase               server CPU µs/req   req/s   p50 ms  p99 ms  × post${db}  failed\n`);
  for (const { phase: p, ratio, slices } of rows) {
    const cells = [
      p.name.padEnd(20),
      p.cpuUs.toFixed(0).padStart(17),
      String(p.requestsPerSec).padStart(7),
      String(p.p50).padStart(8),
      String(p.p99).padStart(7),
      `${ratio.toFixed(2)}×`.padStart(7),
      databaseUrl === undefined ? '' : p.dbCpuUs.toFixed(0).padStart(15),
      String(p.failed).padStart(7),
    ];
    process.stdout.write(`${cells.join(' ')}\n`);
    if (slices.length > 1) process.stdout.write(`  slices: ${slices.map((x) => `${x.write.cpuUs.toFixed(0)} µs ${x.ratio.toFixed(2)}×`).join(', ')}\n`);
  }
  process.stdout.write(`  posts: ${postPhases.map((p) => p.cpuUs.toFixed(0)).join(', ')} µs\n`);
  process.stdout.write(`× post: median over the slices of each slice's CPU per request to the mean of the chat posts just before and after it\n`);
}

/** The crowd's counts as a client reads them afterwards: each must equal what was acknowledged. */
async function checkCounts(app: BenchApp, { roomId, eventId, conversationid, commentId, speakers }: Venue, inRoomAfterKickoff: number): Promise<void> {
  const room = await app.call<{ inroom: number }>('GET', `chat/rooms/${roomId}`);
  const event = await app.call<{ likecount: number }>('GET', `chat/rooms/${roomId}/events/${eventId}`);
  const comment = await app.call<{ votecount: number; votescore: number }>('GET', `comment/conversations/${conversationid}/comments/${commentId}`);
  const checks = [
    ['inroom after the kickoff', inRoomAfterKickoff, fans + speakers.length],
    ['inroom after the final whistle', room.inroom, speakers.length],
    ['likecount', event.likecount, fans],
    ['votecount', comment.votecount, fans],
  ] as const;
  for (const [what, got, want] of checks) {
    process.stdout.write(`${what} ${got} (expected ${want}) ${got === want ? 'EXACT' : 'MISMATCH'}\n`);
    if (got !== want) process.exitCode = 1;
  }
}

for (const checkout of checkouts) await run(checkout);
