/**
 * Votes on one poll from many distinct users: throughput, latency, and exact standings after.
 * Run: npx tsx bench/votes.ts   (DURATION=10 CONNECTIONS=100, or VOTES=n, to change the load)
 */
import autocannon from 'autocannon';
import { spawnServer } from '../test/helpers/spawn.js';
import { load } from './lib/autocannon.js';
import { benchApp } from './lib/app.js';
import { startCeiling } from './lib/ceiling.js';
import { rateLimitNote } from './lib/limits.js';
import { withProgress } from './lib/progress.js';

const duration = Number(process.env['DURATION'] ?? 10);
const connections = Number(process.env['CONNECTIONS'] ?? 100);
/** Enough votes for about `duration` seconds at the 10,000 votes/s target. */
const votes = Number(process.env['VOTES'] ?? duration * 10_000);

// SERVER_URL: measure a server already running (started with MANAGE_TOKEN from test/helpers/spawn.ts).
const external = process.env['SERVER_URL'];
const server = external === undefined ? await spawnServer({ LOG_LEVEL: 'warn' }) : undefined;
try {
  const app = await benchApp(external ?? (server?.url as string));
  const poll = await app.call<{ id: string }>('POST', 'poll/poll/create', { title: 'bench' });
  const choices = await app.call<{ id: string }[]>('POST', `poll/poll/${poll.id}/choice`, { choices: [{ title: 'A' }, { title: 'B' }, { title: 'C' }, { title: 'D' }] });

  const ceiling = await startCeiling();
  const top = await load({ url: `${ceiling.url}/x`, method: 'POST', body: '{}', connections, durationSeconds: 5 });
  ceiling.stop();

  let sent = 0;
  let accepted = 0;
  let refused = 0;
  const started = performance.now();
  let lastAnswer = started;
  // `amount` rather than a duration: every vote sent is answered, so the count of 200s is exact.
  const result = await withProgress(`${votes} votes`, undefined, () =>
    autocannon({
      url: app.url(`poll/poll/${poll.id}/response`),
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-token': app.token },
      connections,
      amount: votes,
      requests: [
        {
          setupRequest: (req) => {
            sent += 1;
            return { ...req, body: JSON.stringify({ userid: `voter${sent}`, choiceid: choices[sent % choices.length]?.id }) };
          },
          onResponse: (status) => {
            lastAnswer = performance.now();
            if (status === 200) accepted += 1;
            else refused += 1;
          },
        },
      ],
    }),
  );
  // Up to the last answer: autocannon itself only notices it is done on its next one-second tick.
  const seconds = (lastAnswer - started) / 1000;
  const standings = await app.call<{ totalresponses: number; choices: { count: number }[] }>('GET', `poll/poll/${poll.id}/standings`);
  const perChoice = standings.choices.reduce((s, c) => s + c.count, 0);
  const votesPerSec = Math.round(accepted / seconds);

  process.stdout.write(
    [
      `${rateLimitNote()}: one vote per user`,
      `ceiling (uWS constant POST, ${connections} connections): ${top.requestsPerSec} req/s`,
      `votes: ${accepted} accepted, ${refused} refused, ${result.errors} errors in ${seconds.toFixed(1)} s = ${votesPerSec} votes/s (${((votesPerSec / top.requestsPerSec) * 100).toFixed(1)}% of ceiling)`,
      `latency p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms`,
      `standings total ${standings.totalresponses}, sum of choices ${perChoice}: ${standings.totalresponses === accepted && perChoice === accepted ? 'EXACT' : 'MISMATCH'}`,
      '',
    ].join('\n'),
  );
  if (standings.totalresponses !== accepted || perChoice !== accepted) process.exitCode = 1;
} finally {
  await server?.stop();
}
