/**
 * The telemetry flood of issue 26 against checkouts side by side: USERS plain users (the client
 * token with each one's JWT) send `POST telemetry/contexts/{new id}/batch` of 100 increments on
 * new keys from CONNECTIONS connections for DURATION seconds. Prints the answers by status, the
 * server's RSS before and after (and its highest), and the slowest /healthz seen meanwhile
 * (asked every 250 ms); then, after a full garbage collection, the RSS and the V8 heap spaces
 * (what the flood left held, in old space, apart from the young generation's size, which any
 * sustained load grows up to 3 × --max-semi-space-size).
 *
 *   COMPARE=before=/path/to/old/checkout,after=. DURATION=60 npx tsx bench/telemetry-flood.ts
 *   ID_LENGTH=200 KEY_LENGTH=240 USERS=1 CONNECTIONS=8   # the defaults: the issue's flood
 *   SERVER_ENV='RATE_LIMITS=off'                          # extra server settings for every checkout
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { SignJWT } from 'jose';
import { FROM_SOURCE, MANAGE_TOKEN, spawnServer } from '../test/helpers/spawn.js';

/** SIGUSR2 runs a full garbage collection in the server (see lib/gc-on-signal.mjs). */
const COLLECTABLE = ['--import', new URL('./lib/gc-on-signal.mjs', import.meta.url).pathname];

const seconds = Number(process.env['DURATION'] ?? 60);
const connections = Number(process.env['CONNECTIONS'] ?? 8);
const userCount = Number(process.env['USERS'] ?? 1);
const idLength = Number(process.env['ID_LENGTH'] ?? 200);
const keyLength = Number(process.env['KEY_LENGTH'] ?? 240);
const serverEnv = Object.fromEntries(
  (process.env['SERVER_ENV'] ?? '')
    .split(/\s+/)
    .filter(Boolean)
    .map((kv) => kv.split('=') as [string, string]),
);
const checkouts = (process.env['COMPARE'] ?? 'this=.').split(',').map((spec) => {
  const [name = '', where = ''] = spec.split('=');
  return { name, root: resolve(where) };
});

const rss = (pid: number) => Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
let counter = 0;
const fresh = (prefix: string, length: number) => `${prefix}${Date.now().toString(36)}-${++counter}-`.padEnd(length, 'x');

async function post(url: string, headers: Record<string, string>, body: unknown): Promise<{ status: number; data: { data: { appid?: string; token?: string; jwtsecret?: string } } }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  return { status: res.status, data: (await res.json()) as { data: { appid?: string; token?: string; jwtsecret?: string } } };
}

async function flood(name: string, root: string): Promise<void> {
  const server = await spawnServer({ LOG_LEVEL: 'error', ...serverEnv }, [...COLLECTABLE, ...FROM_SOURCE], root);
  const pid = server.process.pid as number;
  const manage = { 'x-manage-token': MANAGE_TOKEN };
  const app = (await post(`${server.url}/api/v3/manage/createapplication`, manage, { name: 'flood' })).data.data;
  const token = (await post(`${server.url}/api/v3/manage/createtoken`, manage, { applicationid: app.appid, name: 'browser', scope: 'client' })).data.data.token as string;
  const secret = new TextEncoder().encode(app.jwtsecret as string);
  const users = await Promise.all(
    Array.from({ length: userCount }, async (_, i) => {
      const userid = `flooder${i}`;
      const jwt = await new SignJWT({ userid }).setProtectedHeader({ alg: 'HS256' }).sign(secret);
      return { userid, headers: { 'x-api-token': token, authorization: `Bearer ${jwt}` } };
    }),
  );
  const before = rss(pid);
  let highest = before;
  let slowestHealth = 0;
  const statuses = new Map<number, number>();
  const deadline = Date.now() + seconds * 1000;
  const watcher = (async () => {
    while (Date.now() < deadline) {
      const started = performance.now();
      await fetch(`${server.url}/healthz`, { signal: AbortSignal.timeout(10_000) }).then(
        (r) => r.text(),
        () => undefined,
      );
      slowestHealth = Math.max(slowestHealth, performance.now() - started);
      highest = Math.max(highest, rss(pid));
      await new Promise((r) => setTimeout(r, 250));
    }
  })();
  let turn = 0;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (Date.now() < deadline) {
        const user = users[turn++ % users.length] as (typeof users)[number];
        const ops = Array.from({ length: 100 }, () => ({ op: 'increment', key: fresh('k', keyLength), by: 1 }));
        const { status } = await post(`${server.url}/api/v3/${app.appid}/telemetry/contexts/${fresh('c', idLength)}/batch`, user.headers, { userid: user.userid, ops });
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
      }
    }),
  );
  await watcher;
  const after = rss(pid);
  const answers = [...statuses].map(([status, n]) => `${n} × ${status}`).join(', ');
  process.stdout.write(
    `${name}: ${answers}; RSS ${before.toFixed(0)} → ${after.toFixed(0)} MB (highest ${highest.toFixed(0)}, +${(highest - before).toFixed(0)}); slowest /healthz ${slowestHealth.toFixed(0)} ms\n`,
  );
  server.process.kill('SIGUSR2');
  await new Promise((r) => setTimeout(r, 2000));
  const metrics = await (await fetch(`${server.url}/metrics`)).text();
  const space = (kind: 'used' | 'total', name: string) => Number(new RegExp(`^nodejs_heap_space_size_${kind}_bytes\\{space="${name}"\\} (\\S+)`, 'm').exec(metrics)?.[1] ?? 0) / 1024 / 1024;
  process.stdout.write(`  after a full GC: RSS ${rss(pid).toFixed(0)} MB; old space used ${space('used', 'old').toFixed(0)} MB; new space ${space('total', 'new').toFixed(0)} MB\n`);
  await server.stop();
}

process.stdout.write(
  `telemetry flood: ${userCount} user(s), ${connections} connections, ${seconds} s, context ids of ${idLength} and keys of ${keyLength} characters${Object.keys(serverEnv).length > 0 ? `, server env ${process.env['SERVER_ENV']}` : ''}\n`,
);
for (const { name, root } of checkouts) await flood(name, root);
