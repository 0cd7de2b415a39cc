/**
 * The hot take: a crowd up-votes one comment, reacts to it (and to a conversation), and votes in one poll, each beside
 * chat posts in the same run, on one or more checkouts loaded in turn. Prints server CPU per
 * request, requests/s, p50/p99 and the ratio to a chat post of the same target and round.
 *
 *   RATE_LIMITS=off npx tsx bench/crowd-comments.ts
 *   RATE_LIMITS=off COMPARE=before=/path/to/old/checkout,after=. ROUNDS=3 DURATION=5 npx tsx bench/crowd-comments.ts
 *
 * FANS distinct users (default 3,000), CONNECTIONS requests in flight (default 32). With
 * DATABASE_URL set every checkout's server uses that database. Each run writes to a fresh
 * comment (and poll), so a run's votes start from none; past FANS requests the fans repeat
 * themselves (a repeated up-vote or like changes nothing, as fans hammering do).
 * `crowdCommentLoads` is exported for a combined crowd bench.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { initEmbeddedCluster } from '../src/db/embedded.js';
import { FROM_SOURCE, BUILT, spawnServer, type SpawnedServer } from '../test/helpers/spawn.js';
import { benchApp, type BenchApp } from './lib/app.js';
import { load, type LoadOptions, type LoadResult } from './lib/autocannon.js';
import { cpuSeconds } from './lib/cpu.js';
import { joinSpeakers, rateLimitNote } from './lib/limits.js';
import { turnOrder } from './lib/checkouts.js';

export const CROWD_COMMENT_LOADS = ['post', 'upvote', 'react', 'convreact', 'pollvote'] as const;
export type CrowdCommentLoad = (typeof CROWD_COMMENT_LOADS)[number];

/** Fans of one application, made once: users joined to a room (chat posts need that), existing for comment votes. */
export interface Crowd {
  app: BenchApp;
  roomid: string;
  conversationid: string;
  fans: string[];
}

export async function gatherCrowd(app: BenchApp, fans: number): Promise<Crowd> {
  const room = await app.call<{ id: string }>('POST', 'chat/rooms', { name: 'crowd', enableenterandexit: false });
  const conversation = await app.call<{ conversationid: string }>('POST', 'comment/conversations', { conversationid: `crowd-${Date.now()}`, property: 'bench', moderation: 'post' });
  return { app, roomid: room.id, conversationid: conversation.conversationid, fans: await joinSpeakers(app, room.id, fans) };
}

/** The load of one kind, on a fresh target (comment or poll) so each run starts from no votes. */
export async function crowdCommentLoads(crowd: Crowd, name: CrowdCommentLoad, connections: number, durationSeconds: number): Promise<LoadOptions> {
  const { app, fans } = crowd;
  const headers = { 'x-api-token': app.token };
  const each = (body: (userid: string) => unknown) => fans.map((userid) => JSON.stringify(body(userid)));
  const base = { method: 'POST' as const, headers, connections, durationSeconds };
  if (name === 'post') return { ...base, url: app.url(`chat/rooms/${crowd.roomid}/command`), bodies: each((userid) => ({ userid, command: 'what a goal' })) };
  if (name === 'pollvote') {
    // Unlimited responses per user: past FANS requests a fan's vote is written again rather than refused.
    const poll = await app.call<{ id: string }>('POST', 'poll/poll/create', { title: 'man of the match', maxtotalresponsesperuser: 0, maxresponsesperchoiceperuser: 0 });
    const choices = await app.call<{ id: string }[]>('POST', `poll/poll/${poll.id}/choice`, { choices: [{ title: 'A' }, { title: 'B' }] });
    const choiceid = (choices[0] as { id: string }).id;
    return { ...base, url: app.url(`poll/poll/${poll.id}/response`), bodies: each((userid) => ({ userid, choiceid })) };
  }
  if (name === 'convreact') {
    // A conversation's reactions take the same batched path as a comment's, without notifying an author.
    const conversation = await app.call<{ conversationid: string }>('POST', 'comment/conversations', { conversationid: `crowd-${Date.now()}-${Math.random()}`, property: 'bench', moderation: 'post' });
    return { ...base, url: app.url(`comment/conversations/${conversation.conversationid}/react`), bodies: each((userid) => ({ userid, reaction: 'like', reacted: true })) };
  }
  const comment = await app.call<{ id: string }>('POST', `comment/conversations/${crowd.conversationid}/comments`, { userid: fans[0], body: 'hot take' });
  const path = `comment/conversations/${crowd.conversationid}/comments/${comment.id}`;
  if (name === 'upvote') return { ...base, url: app.url(`${path}/vote`), bodies: each((userid) => ({ userid, vote: 'up' })) };
  return { ...base, url: app.url(`${path}/react`), bodies: each((userid) => ({ userid, reaction: 'like', reacted: true })) };
}

/** One load on one server: its result and the server's CPU per answered request. */
export async function measureLoad(server: SpawnedServer, options: LoadOptions): Promise<LoadResult & { cpuUs: number }> {
  const pid = server.process.pid as number;
  const before = cpuSeconds(pid);
  const result = await load(options);
  return { ...result, cpuUs: ((cpuSeconds(pid) - before) * 1e6) / Math.max(1, result.answered) };
}

const dataDirs: string[] = [];

/** On the embedded default, a data directory whose database is made beforehand: on a busy machine initdb alone may outlast a server's start. */
async function dataDirEnv(): Promise<Record<string, string>> {
  if (process.env['DATABASE_URL'] !== undefined) return {};
  const dir = mkdtempSync(join(tmpdir(), 'engage-crowd-'));
  dataDirs.push(dir);
  await initEmbeddedCluster(dir);
  return { DATA_DIR: dir };
}

async function main(): Promise<void> {
  const duration = Number(process.env['DURATION'] ?? 5);
  const rounds = Number(process.env['ROUNDS'] ?? 3);
  const connections = Number(process.env['CONNECTIONS'] ?? 32);
  const fanCount = Number(process.env['FANS'] ?? 3000);
  const loads = (process.env['LOADS'] ?? CROWD_COMMENT_LOADS.join(',')).split(',') as CrowdCommentLoad[];
  for (const name of loads) if (!CROWD_COMMENT_LOADS.includes(name)) throw new Error(`LOADS: unknown load ${name} (${CROWD_COMMENT_LOADS.join(', ')})`);
  const checkouts = (process.env['COMPARE'] ?? 'this=.').split(',').map((spec) => {
    const [name = '', where = '.'] = spec.split('=');
    const built = where.endsWith(':dist');
    return { name, root: resolve(built ? where.slice(0, -':dist'.length) : where), entry: built ? BUILT : FROM_SOURCE };
  });
  process.stdout.write(`${rateLimitNote()}; ${fanCount} fans, ${connections} in flight, ${process.env['DATABASE_URL'] === undefined ? 'embedded' : 'Postgres'}\n`);
  const targets: { name: string; server: SpawnedServer; crowd: Crowd }[] = [];
  const servers: SpawnedServer[] = [];
  try {
    // Every server starts before any crowd gathers: a start waits at most a minute for its server.
    for (const c of checkouts) servers.push(await spawnServer(await dataDirEnv(), c.entry, c.root));
    const crowds = await Promise.all(servers.map(async (server) => gatherCrowd(await benchApp(server.url), fanCount)));
    checkouts.forEach((c, i) => targets.push({ name: c.name, server: servers[i] as SpawnedServer, crowd: crowds[i] as Crowd }));
    const ratios = new Map<string, number[]>();
    for (let round = 0; round <= rounds; round++) {
      for (const target of turnOrder(targets, round)) {
        const cpu = new Map<CrowdCommentLoad, number>();
        for (const name of loads) {
          const r = await measureLoad(target.server, await crowdCommentLoads(target.crowd, name, connections, duration));
          cpu.set(name, r.cpuUs);
          const ratio = r.cpuUs / (cpu.get('post') ?? r.cpuUs);
          // Round 0 warms up and is not counted.
          if (round > 0) ratios.set(`${target.name} ${name}`, [...(ratios.get(`${target.name} ${name}`) ?? []), ratio]);
          process.stdout.write(
            `${round === 0 ? 'warm-up' : `round ${round}`} ${target.name.padEnd(8)} ${name.padEnd(9)} ${String(r.requestsPerSec).padStart(6)} req/s  p50 ${r.p50} ms  p99 ${r.p99} ms  non2xx ${r.non2xx}  server CPU ${r.cpuUs.toFixed(0).padStart(6)} µs/request  ${ratio.toFixed(2)}× a post\n`,
          );
        }
      }
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
    for (const [key, values] of ratios) process.stdout.write(`median ${key.padEnd(20)} ${median(values).toFixed(2)}× a chat post's server CPU over ${values.length} rounds\n`);
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
    for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
