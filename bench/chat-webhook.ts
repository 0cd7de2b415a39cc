/**
 * The chat command (POST chat/rooms/{id}/command) with and without a postpublish webhook whose
 * receiver (a separate process on loopback) answers 200, and every accepted message should
 * reach the receiver. Two questions:
 * - Is the publishing request slowed? At one fixed rate (half what the machine sustains with
 *   the hook), latency with and without the hook, alternated twice so the spread between runs
 *   of the same kind shows the noise. Then a control: no hook, while an unrelated process at the
 *   lowest priority (nice 19) burns as much CPU as delivering took. On a small machine any work
 *   beside the server costs the request some latency; the control shows how much.
 * - What does delivering cost? Saturation throughput with and without the hook, and the CPU per
 *   message of each process: on one machine the deliveries and the receiver share the cores
 *   that serve requests.
 * Runs with the default rate limits. Run: npx tsx bench/chat-webhook.ts   (DURATION=10 CONNECTIONS=50 RATE=<fixed rate> SPEAKERS=20000)
 */
import { spawn } from 'node:child_process';
import autocannon from 'autocannon';
import { paced } from './lib/paced.js';
import { withProgress } from './lib/progress.js';
import { spawnServer } from '../test/helpers/spawn.js';
import { cpuSeconds, postgresCpuSeconds } from './lib/cpu.js';
import { benchApp, type BenchApp } from './lib/app.js';
import { joinSpeakers, rateLimitNote } from './lib/limits.js';

const duration = Number(process.env['DURATION'] ?? 10);
const connections = Number(process.env['CONNECTIONS'] ?? 50);
/** Posts go round-robin over this many joined users, each well inside the default per-user chat budget. */
const USERS = Number(process.env['SPEAKERS'] ?? 20_000);
/** HOOK_EVENTS=chatexit measures a hook that exists but does not fire for these messages. */
const hookEvents = (process.env['HOOK_EVENTS'] ?? 'chatspeech').split(',');

/** The control's load: busy for the given ms out of every 10 ms. */
const BURNER = `const busy = Number(process.argv[1]); const tick = () => { const end = performance.now() + busy; while (performance.now() < end); setTimeout(tick, 10 - busy); }; tick();`;

/** The receiver: its own process, so answering deliveries does not take CPU from the load generator. */
const RECEIVER = `
const http = require('node:http');
let count = 0;
const server = http.createServer((req, res) => { req.resume(); req.on('end', () => { count++; res.end('ok'); }); });
server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
process.on('message', () => process.send({ count }));
`;

interface Figures {
  accepted: number;
  rps: number;
  p50: number;
  p99: number;
  /** CPU microseconds per accepted message: the server, Postgres, the receiver. */
  cpu: { server: number; postgres: number; receiver: number };
}

/** Runs a load and charges the CPU each side used to the messages it accepted. */
async function measured(pids: { server: number | undefined; receiver: number }, load: () => Promise<Omit<Figures, 'cpu'>>): Promise<Figures> {
  const sample = () => ({ server: pids.server === undefined ? 0 : cpuSeconds(pids.server), postgres: postgresCpuSeconds(), receiver: cpuSeconds(pids.receiver) });
  const before = sample();
  const figures = await load();
  const after = sample();
  const per = (k: keyof typeof before) => Math.round(((after[k] - before[k]) * 1e6) / Math.max(1, figures.accepted));
  return { ...figures, cpu: { server: per('server'), postgres: per('postgres'), receiver: per('receiver') } };
}
const cpuLine = (f: Figures) => `CPU per message: server ${f.cpu.server} µs, Postgres ${f.cpu.postgres} µs, receiver ${f.cpu.receiver} µs`;

async function run(app: BenchApp, roomid: string, users: string[]): Promise<Omit<Figures, 'cpu'>> {
  let n = 0;
  let accepted = 0;
  const result = await withProgress('POST command (saturation)', duration, () =>
    autocannon({
      url: app.url(`chat/rooms/${roomid}/command`),
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-token': app.token },
      connections,
      duration,
      requests: [
        {
          setupRequest: (req) => {
            n += 1;
            return { ...req, body: JSON.stringify({ userid: users[n % users.length], command: `message ${n}` }) };
          },
          onResponse: (status) => {
            if (status === 200) accepted += 1;
          },
        },
      ],
    }),
  );
  return { accepted, rps: Math.round(result.requests.average), p50: result.latency.p50, p99: result.latency.p99 };
}

// SERVER_URL: measure a server already running (started with MANAGE_TOKEN from test/helpers/spawn.ts).
const external = process.env['SERVER_URL'];
const server = external === undefined ? await spawnServer({ LOG_LEVEL: 'warn' }) : undefined;
const receiver = spawn(process.execPath, ['-e', RECEIVER], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
try {
  const { port } = await new Promise<{ port: number }>((resolve) => receiver.once('message', (m) => resolve(m as { port: number })));
  const receivedCount = () =>
    new Promise<number>((resolve) => {
      receiver.once('message', (m) => resolve((m as { count: number }).count));
      receiver.send('count');
    });

  const app = await benchApp(external ?? (server?.url as string));
  const room = await app.call<{ id: string }>('POST', 'chat/rooms', { name: 'bench', enableenterandexit: false, enableprofanityfilter: false });
  const hookBody = { label: 'bench', url: `http://127.0.0.1:${port}/hook`, type: 'postpublish', events: hookEvents };
  const users = await joinSpeakers(app, room.id, USERS);

  const pids = { server: server?.process.pid, receiver: receiver.pid as number };
  const without = await measured(pids, () => run(app, room.id, users));
  const hook = await app.call<{ id: string }>('POST', 'webhook/hooks', { ...hookBody, enabled: true });
  const withHook = await measured(pids, () => run(app, room.id, users));
  let expected = withHook.accepted;

  // The fixed rate: half of what the machine sustains with the hook.
  const rate = Number(process.env['RATE'] ?? Math.round(withHook.rps / 2));
  const fixedRate = async (enabled: boolean) => {
    await app.call('PUT', `webhook/hooks/${hook.id}`, { ...hookBody, enabled });
    const r = await withProgress(`POST command at ${rate}/s, hook ${enabled ? 'on' : 'off'}`, duration, () =>
      paced({
        url: app.url(`chat/rooms/${room.id}/command`),
        method: 'POST',
        headers: { 'x-api-token': app.token },
        bodies: users.map((userid) => JSON.stringify({ userid, command: 'a message at a fixed rate' })),
        connections,
        durationSeconds: duration,
        overallRate: rate,
      }),
    );
    if (enabled) expected += r.answered - r.non2xx;
    return r;
  };
  const fixed = [await fixedRate(false), await fixedRate(true), await fixedRate(false), await fixedRate(true)];
  const total = (f: Figures) => f.cpu.server + f.cpu.postgres + f.cpu.receiver;
  const deliveryCores = Math.max(0, ((total(withHook) - total(without)) * rate) / 1e6);
  const burner = spawn('nice', ['-n', '19', process.execPath, '-e', BURNER, String(Math.min(9, deliveryCores * 10))], { stdio: 'ignore' });
  const control = await fixedRate(false).finally(() => burner.kill());

  const loadEnded = performance.now();
  let delivered = await receivedCount();
  if (!hookEvents.includes('chatspeech')) expected = 0;
  while (delivered < expected && performance.now() - loadEnded < 60_000) {
    await new Promise((r) => setTimeout(r, 250));
    delivered = await receivedCount();
  }
  const drainSeconds = (performance.now() - loadEnded) / 1000;
  const { webhooks } = await app.call<{ webhooks: { consecutivefailures: number }[] }>('GET', 'webhook/hooks');
  const change = ((withHook.rps - without.rps) / without.rps) * 100;
  const latencies = (r: (typeof fixed)[number]) => `p50 ${r.p50} ms, p90 ${r.p90} ms, p99 ${r.p99} ms`;
  const pacedLine = (r: (typeof fixed)[number], hooked: boolean) =>
    `    ${hooked ? 'with hook   ' : 'without hook'}: ${latencies(r)} (${r.requestsPerSec} req/s answered, ${r.non2xx + r.errors} not 2xx)`;

  process.stdout.write(
    [
      `chat command, ${connections} connections, ${duration} s each; ${rateLimitNote()}, posts round-robin over ${users.length} users:`,
      `  at a fixed ${rate} messages/s${process.env['RATE'] === undefined ? ' (half the saturation rate with the hook)' : ''}, alternated:`,
      ...fixed.map((r, i) => pacedLine(r, i % 2 === 1)),
      `    control     : ${latencies(control)} (no hook; a nice 19 process busy ${deliveryCores.toFixed(2)} of a core, the CPU delivering took at this rate)`,
      `  at saturation:`,
      `  without webhook: ${without.rps} req/s, p50 ${without.p50} ms, p99 ${without.p99} ms (${without.accepted} messages); ${cpuLine(without)}`,
      `  with postpublish webhook: ${withHook.rps} req/s, p50 ${withHook.p50} ms, p99 ${withHook.p99} ms (${withHook.accepted} messages); ${cpuLine(withHook)}`,
      `  throughput change: ${change >= 0 ? '+' : ''}${change.toFixed(1)}%`,
      // Requests in flight when autocannon stops are accepted by the server but not counted: up to one per connection more arrive.
      `  deliveries received: ${delivered}, of at least ${expected} accepted messages, all in by ${drainSeconds.toFixed(1)} s after the load ended`,
      `  hook after the run: consecutive failures ${webhooks[0]?.consecutivefailures} (the control run left it switched off)`,
      '',
    ].join('\n'),
  );
  if (delivered < expected) process.exitCode = 1;
} finally {
  receiver.kill();
  await server?.stop();
}
