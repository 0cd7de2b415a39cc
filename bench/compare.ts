/**
 * Before/after on the chat hot paths: servers from several checkouts run side by side and are
 * loaded in turn, round after round, so each pair of figures comes from the same minute of a
 * shared machine. Each round loads GET `updates` at the head of a room, then ten events behind,
 * then POST `command` (speech, round-robin over SPEAKERS joined users, POST_CONNECTIONS
 * connections). Prints each run's server CPU per request and the median per checkout and load.
 *
 *   COMPARE=before=/path/to/old/checkout,after=.  npx tsx bench/compare.ts
 *   COMPARE=before=/old:dist,after=.:dist ROUNDS=8 DURATION=5 LOADS=post ...   # compiled (npm run build in each); POST only
 *   DATABASE_URL_before=postgres://…/a DATABASE_URL_after=postgres://…/b ...      # each checkout on its own Postgres database
 *
 * A checkout is `name=path` (run from source through tsx) or `name=path:dist` (its built dist/).
 * LOADS picks the loads (default head,behind,post).
 */
import { resolve } from 'node:path';
import { BUILT, FROM_SOURCE, type SpawnedServer, spawnServer } from '../test/helpers/spawn.js';
import { benchApp } from './lib/app.js';
import { load, type LoadOptions } from './lib/autocannon.js';
import { cpuSeconds, databaseCpuFrom } from './lib/cpu.js';
import { joinSpeakers } from './lib/limits.js';
import { turnOrder } from './lib/checkouts.js';

const seconds = Number(process.env['DURATION'] ?? 5);
const rounds = Number(process.env['ROUNDS'] ?? 6);
const connections = Number(process.env['BENCH_CONNECTIONS'] ?? 64);
/** Posting is group-committed: throughput grows with the requests in flight (as in bench/chat.ts). */
const postConnections = Number(process.env['POST_CONNECTIONS'] ?? 256);
/** Round-robin keeps each user inside the default per-user chat budget (see lib/limits.ts). */
const speakerCount = Number(process.env['SPEAKERS'] ?? 4000);
const LOADS = ['head', 'behind', 'post'] as const;
type LoadName = (typeof LOADS)[number];
const loads = (process.env['LOADS'] ?? LOADS.join(',')).split(',') as LoadName[];
for (const name of loads) if (!LOADS.includes(name)) throw new Error(`LOADS: unknown load ${name} (${LOADS.join(', ')})`);
const checkouts = (process.env['COMPARE'] ?? '').split(',').filter(Boolean).map(parseCheckout);
if (checkouts.length === 0) throw new Error('COMPARE=name=path[:dist],name=path[:dist] names the checkouts to compare');

function parseCheckout(spec: string) {
  const [name = '', where = ''] = spec.split('=');
  const built = where.endsWith(':dist');
  return { name, root: resolve(built ? where.slice(0, -':dist'.length) : where), entry: built ? BUILT : FROM_SOURCE };
}

interface Target {
  name: string;
  server: SpawnedServer;
  /** DATABASE_URL_{name}: its Postgres backends' CPU is charged to it too. */
  database: string | undefined;
  loads: Record<LoadName, LoadOptions>;
  /** Moves the polls' cursors to the room's head and ten events behind it (posts since have moved the head). */
  followHead(): Promise<void>;
}

/** Starts a checkout's server (on the embedded default unless DATABASE_URL_{name} is set): a room ten events past a cursor, and joined speakers. */
async function start(checkout: ReturnType<typeof parseCheckout>): Promise<Target> {
  const database = process.env[`DATABASE_URL_${checkout.name}`];
  const server = await spawnServer(database === undefined ? {} : { DATABASE_URL: database }, checkout.entry, checkout.root);
  const app = await benchApp(server.url);
  const room = await app.call<{ id: string }>('POST', 'chat/rooms', { name: 'bench', enableenterandexit: false });
  await app.call('POST', `chat/rooms/${room.id}/join`, { userid: 'poller', displayname: 'Poller' });
  const updates = (query: string) => app.call<{ cursor: string }>('GET', `chat/rooms/${room.id}/updates?${query}`);
  const cursors = async () => {
    const behind = (await updates('limit=1')).cursor;
    for (let i = 0; i < 10; i++) await app.call('POST', `chat/rooms/${room.id}/command`, { userid: 'poller', command: `tail ${i}` });
    return { behind, head: (await updates(`cursor=${behind}`)).cursor };
  };
  const { behind, head } = await cursors();
  const speakers = loads.includes('post') ? await joinSpeakers(app, room.id, speakerCount) : [];
  const headers = { 'x-api-token': app.token };
  const poll = (cursor: string): LoadOptions => ({ url: app.url(`chat/rooms/${room.id}/updates?cursor=${cursor}`), headers, connections, durationSeconds: seconds });
  const post: LoadOptions = {
    url: app.url(`chat/rooms/${room.id}/command`),
    method: 'POST',
    headers,
    bodies: speakers.map((userid) => JSON.stringify({ userid, command: 'hello from the bench' })),
    connections: postConnections,
    durationSeconds: seconds,
  };
  const polls = { head: poll(head), behind: poll(behind), post };
  const followHead = async () => {
    const moved = await cursors();
    polls.head = poll(moved.head);
    polls.behind = poll(moved.behind);
  };
  return { name: checkout.name, server, database, loads: polls, followHead };
}

const targets: Target[] = [];
for (const checkout of checkouts) targets.push(await start(checkout));
const runs = new Map<string, number[]>();
const measure = async (target: Target, name: LoadName) => {
  const pid = target.server.process.pid as number;
  const databaseCpu = await databaseCpuFrom(target.database);
  const before = cpuSeconds(pid);
  if (name !== 'post') await target.followHead();
  const result = await load(target.loads[name]);
  const per = (seconds: number) => (seconds * 1e6) / Math.max(1, result.answered);
  const cpuUs = per(cpuSeconds(pid) - before);
  const postgresUs = per(await databaseCpu());
  const postgres = target.database === undefined ? '' : `, its Postgres backends ${postgresUs.toFixed(1)} µs/request`;
  process.stdout.write(
    `${target.name.padEnd(10)} ${name.padEnd(6)} ${String(result.requestsPerSec).padStart(6)} req/s  non2xx ${result.non2xx}  server CPU ${cpuUs.toFixed(1)} µs/request${postgres}\n`,
  );
  return target.database === undefined ? { server: cpuUs } : { server: cpuUs, postgres: postgresUs };
};
try {
  for (const target of targets) for (const name of loads) await measure(target, name); // warm-up, not counted
  for (let round = 0; round < rounds; round++) {
    for (const name of loads) {
      for (const target of turnOrder(targets, round)) {
        const key = `${target.name} ${name}`;
        const cpu = await measure(target, name);
        runs.set(key, [...(runs.get(key) ?? []), cpu.server]);
        if (cpu.postgres !== undefined) runs.set(`${key} postgres`, [...(runs.get(`${key} postgres`) ?? []), cpu.postgres]);
      }
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
  for (const [key, values] of runs) process.stdout.write(`median ${key.padEnd(18)} ${median(values).toFixed(1)} µs/request over ${values.length} runs\n`);
} finally {
  await Promise.all(targets.map((target) => target.server.stop()));
}
