/**
 * Whether reading an object nobody read recently costs as much on a grown store as on a small one
 * (issue 57), measured so that the machine's drift cancels: bench:growth's kept small and large
 * stores (GROWTH_STORES; run bench:growth with it once to grow them), each on a server of its own
 * started with COLD_ENV (no user, room or shared answer kept), both running at once. Each round
 * measures every read on one end, then on the other, the order of the ends alternating and that of
 * the reads rotating from round to round; the first round warms both and is not counted. Server
 * CPU per request, the median over the rounds and their spread; each read as a multiple of its
 * end's head poll. Every round sends the same number of requests to both ends, so that over the
 * run no object of the large store is read twice (the small store's are read round and round, as
 * in bench:growth). On Postgres (DATABASE_URL), each end is a database of its own copied from the
 * store bench:growth kept there, and a request's cost is the server's CPU and its backends' together.
 *
 *   GROWTH_STORES=/dir npm run bench:cold-flatness
 *   DATABASE_URL=postgres://… GROWTH_STORES=/dir npm run bench:cold-flatness   # Postgres (databases {name}_cold_flatness_small/_large)
 *   ROUNDS=10 CONNECTIONS=32 HEAD_SECONDS=2              # ROUNDS by default: one more than the reads (each first once)
 *   HISTORY=1000000 ROOMS=20000 USERS=100000             # the large store, as bench:growth grew it
 *   BENCH_ROOT=/path/to/checkout                         # another checkout of the server
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildServerIfStale } from '../test/helpers/built-server.js';
import { BUILT, spawnServer, type SpawnedServer } from '../test/helpers/spawn.js';
import { benchClient } from './lib/app.js';
import { load } from './lib/autocannon.js';
import { COLD_ENV, type ColdRead, coldReads } from './lib/cold-reads.js';
import { cpuSeconds, databaseCpuFrom, settled } from './lib/cpu.js';
import type { StoreSize } from './lib/grow-store.js';
import { KeptStores } from './lib/kept-stores.js';
import { turnOrder } from './lib/checkouts.js';
import { databaseNextTo, dropDatabase, onDatabase } from '../test/helpers/fresh-database.js';

const SMALL: StoreSize = { history: 1_000, rooms: 50, users: 250 };
const LARGE: StoreSize = { history: Number(process.env['HISTORY'] ?? 1_000_000), rooms: Number(process.env['ROOMS'] ?? 20_000), users: Number(process.env['USERS'] ?? 100_000) };
const connections = Number(process.env['CONNECTIONS'] ?? 32);
const headSeconds = Number(process.env['HEAD_SECONDS'] ?? 2);
const storesDir = process.env['GROWTH_STORES'];
if (storesDir === undefined) throw new Error('GROWTH_STORES=/dir is required: the kept stores of bench:growth (run it with GROWTH_STORES once to grow them)');
const root = process.env['BENCH_ROOT'];
const databaseUrl = process.env['DATABASE_URL'];
const kept = new KeptStores(storesDir, root ?? '.', databaseUrl);
const HEAD_POLL = 'updates at the head';

interface Read {
  name: string;
  url: string;
  /** The objects it reads in turn; none for the head poll, which reads one. */
  objects?: ColdRead['objects'];
}

interface End {
  name: string;
  server: SpawnedServer;
  token: string;
  dataDir: string;
  /** Its database on Postgres; undefined on the embedded database. */
  url: string | undefined;
  reads: Read[];
  /** CPU µs per request of each read (on Postgres, its backends' too), a value per counted round. */
  costs: Map<string, number[]>;
}

async function startEnd(name: string, size: StoreSize): Promise<End> {
  const dataDir = mkdtempSync(join(tmpdir(), `cold-flatness-${name}-`));
  // Made by the restore, as a copy of the kept store.
  const url = databaseNextTo(databaseUrl, `cold_flatness_${name}`);
  const meta = await kept.restore(size, dataDir, url);
  if (meta === undefined) {
    rmSync(dataDir, { recursive: true, force: true });
    await dropDatabase(url);
    throw new Error(
      `no kept ${name} store of ${JSON.stringify(size)} in ${storesDir}${url === undefined ? '' : ' for this Postgres'}: run bench:growth with GROWTH_STORES=${storesDir} (and the same DATABASE_URL) first`,
    );
  }
  const server = await spawnServer({ ...COLD_ENV, DATA_DIR: dataDir, RATE_LIMITS: 'off', ...onDatabase(url) }, BUILT, root);
  const app = benchClient(server.url, meta.appId, meta.token);
  const head = await app.call<{ cursor: string }>('GET', `chat/rooms/${meta.roomId}/updates?limit=1`);
  const headUrl = app.url(`chat/rooms/${meta.roomId}/updates?cursor=${head.cursor}`);
  const cold = coldReads(app, size).map(({ name, path, objects }) => ({ name, url: app.url(path), objects }));
  return { name, server, token: meta.token, dataDir, url, reads: [{ name: HEAD_POLL, url: headUrl }, ...cold], costs: new Map() };
}

/** CPU per request (the server's, on Postgres its backends' too) of `amount` requests of the read (its objects in turn), or of `headSeconds` of it when it reads one object. */
async function cost(end: End, read: Read, amount: number): Promise<number> {
  const pid = end.server.process.pid as number;
  await settled(pid);
  const databaseCpu = await databaseCpuFrom(end.url);
  const before = cpuSeconds(pid);
  const { objects } = read;
  const result = await load({
    url: read.url,
    headers: { 'x-api-token': end.token },
    connections,
    ...(objects === undefined ? { durationSeconds: headSeconds } : { durationSeconds: 60, amount, nextPath: objects.next }),
  });
  await settled(pid);
  if (result.non2xx + result.errors > 0) console.log(`${end.name}: ${read.name}: ${result.non2xx + result.errors} failed`);
  const used = cpuSeconds(pid) - before + (await databaseCpu());
  return (used * 1e6) / Math.max(1, result.answered);
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

await buildServerIfStale();
// Stopped in `finally` as each is started: a large store not kept leaves no small server running.
const ends: End[] = [];
try {
  ends.push(await startEnd('small', SMALL));
  ends.push(await startEnd('large', LARGE));
  const [small, large] = ends as [End, End];
  // By default each read comes first in one counted round (see the rotation below).
  const rounds = Number(process.env['ROUNDS'] ?? large.reads.length + 1);
  console.log(
    `cold reads${databaseUrl === undefined ? '' : ' on Postgres'}, small ${JSON.stringify(SMALL)} vs large ${JSON.stringify(LARGE)} side by side: ${rounds} rounds (the first not counted), ${connections} connections`,
  );
  // Requests per round of each read: the large store's objects of its kind shared out over the rounds.
  const amounts = large.reads.map((read) => Math.floor((read.objects?.left() ?? 0) / rounds));
  for (let round = 0; round < rounds; round++) {
    // Whichever read comes first in a round costs more on the large store than it does later in
    // the round (docs/limits.md): the order rotates so that no read always comes first.
    for (let k = 0; k < large.reads.length; k++) {
      const i = (k + round) % large.reads.length;
      for (const end of turnOrder([small, large], round)) {
        const read = end.reads[i] as Read;
        const us = await cost(end, read, amounts[i] as number);
        if (round > 0) end.costs.set(read.name, [...(end.costs.get(read.name) ?? []), us]);
      }
    }
    console.log(`round ${round + 1} of ${rounds} done`);
  }
  const head = (end: End) => median(end.costs.get(HEAD_POLL) as number[]);
  const spread = (values: number[]) => `${Math.round(Math.min(...values))}–${Math.round(Math.max(...values))}`;
  console.table(
    large.reads.map(({ name }) => {
      const [s, l] = [small, large].map((end) => median(end.costs.get(name) as number[])) as [number, number];
      return {
        read: name,
        'small µs': Math.round(s),
        'large µs': Math.round(l),
        'large/small': (l / s).toFixed(2),
        'small ×head': (s / head(small)).toFixed(2),
        'large ×head': (l / head(large)).toFixed(2),
        'small spread': spread(small.costs.get(name) as number[]),
        'large spread': spread(large.costs.get(name) as number[]),
      };
    }),
  );
} finally {
  for (const end of ends) {
    await end.server.stop();
    rmSync(end.dataDir, { recursive: true, force: true });
    await dropDatabase(end.url);
  }
}
