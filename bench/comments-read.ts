/**
 * The hot read path of comments: the first page (sort newest) of a conversation of 10,000
 * comments, against the uWS ceiling measured in the same run; then the second page, which the
 * cache does not hold, for the database path.
 * Run: npx tsx bench/comments-read.ts   (DATABASE_URL for Postgres; COMMENTS, LIMIT, DURATION, CONNECTIONS to change)
 */
import { spawnServer } from '../test/helpers/spawn.js';
import { benchApp } from './lib/app.js';
import { load } from './lib/autocannon.js';
import { startCeiling } from './lib/ceiling.js';
import { rateLimitNote } from './lib/limits.js';

const total = Number(process.env['COMMENTS'] ?? 10_000);
const limit = Number(process.env['LIMIT'] ?? 20);
const duration = Number(process.env['DURATION'] ?? 10);
const connections = Number(process.env['CONNECTIONS'] ?? 64);
/** Ten comments per author: seeding stays inside the default per-user comment budget (RATE_LIMIT_COMMENTS). */
const AUTHORS = Math.ceil(total / 10);
const WIDTH = 64;

const server = await spawnServer({ LOG_LEVEL: 'warn' });
try {
  const app = await benchApp(server.url);
  const conversationid = `bench-${Date.now()}`;
  await app.call('POST', 'comment/conversations', { conversationid, property: 'bench', moderation: 'post' });
  for (let u = 0; u < AUTHORS; u++) await app.call('POST', `user/users/author${u}`, { displayname: `Author ${u}` });

  const seedStart = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: WIDTH }, async () => {
      while (next < total) {
        const i = next++;
        await app.call('POST', `comment/conversations/${conversationid}/comments`, { userid: `author${i % AUTHORS}`, body: `Comment number ${i} #bench` });
      }
    }),
  );
  const seedSeconds = (performance.now() - seedStart) / 1000;
  const conv = await app.call<{ commentcount: number }>('GET', `comment/conversations/${conversationid}`);
  if (conv.commentcount !== total) throw new Error(`seeded ${conv.commentcount} comments, expected ${total}`);

  const ceiling = await startCeiling();
  const top = await load({ url: `${ceiling.url}/x`, connections, durationSeconds: duration });
  ceiling.stop();

  const page = await load({
    url: app.url(`comment/conversations/${conversationid}/comments?sort=newest&limit=${limit}`),
    headers: { 'x-api-token': app.token },
    connections,
    durationSeconds: duration,
  });

  // The second page is not cached: it measures the database path (one indexed range read, one batched user read).
  const first = await app.call<{ cursor: string }>('GET', `comment/conversations/${conversationid}/comments?sort=newest&limit=${limit}`);
  const second = await load({
    url: app.url(`comment/conversations/${conversationid}/comments?sort=newest&limit=${limit}&cursor=${first.cursor}`),
    headers: { 'x-api-token': app.token },
    connections,
    durationSeconds: duration,
  });

  process.stdout.write(
    [
      `database: ${process.env['DATABASE_URL'] === undefined ? 'embedded (PGlite)' : 'postgres'}; ${rateLimitNote()}`,
      `seeded ${total} comments over HTTP (${WIDTH} concurrent) in ${seedSeconds.toFixed(1)} s = ${Math.round(total / seedSeconds)} comments/s`,
      `ceiling (uWS constant GET, ${connections} connections, ${duration} s): ${top.requestsPerSec} req/s, p50 ${top.p50} ms, p99 ${top.p99} ms`,
      `first page (newest, limit ${limit}): ${page.requestsPerSec} req/s, p50 ${page.p50} ms, p99 ${page.p99} ms, non-2xx ${page.non2xx}, errors ${page.errors}`,
      `ratio: ${((page.requestsPerSec / top.requestsPerSec) * 100).toFixed(1)}% of ceiling`,
      `second page (uncached, from the database): ${second.requestsPerSec} req/s, p50 ${second.p50} ms, p99 ${second.p99} ms, non-2xx ${second.non2xx}, errors ${second.errors}`,
      '',
    ].join('\n'),
  );
} finally {
  await server.stop();
}
