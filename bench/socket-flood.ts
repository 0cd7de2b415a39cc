/**
 * The socket flood of issue 26 against checkouts in turn: each server runs under
 * `prlimit --nofile=LIMIT:LIMIT`, one address asks for ASKED WebSockets at once with the public
 * client token (each given 60 s to be answered), then /healthz and a REST read are timed from
 * another address (127.0.0.2). Prints how the sockets settled and those two answers.
 *
 *   COMPARE=before=/path/to/old/checkout,after=. LIMIT=4096 ASKED=5096 npx tsx bench/socket-flood.ts
 */
import { resolve } from 'node:path';
import { Agent, fetch as undiciFetch } from 'undici';
import WebSocket from 'ws';
import { FROM_SOURCE, MANAGE_TOKEN, spawnServer } from '../test/helpers/spawn.js';

const LIMIT = Number(process.env['LIMIT'] ?? 4096);
const ASKED = Number(process.env['ASKED'] ?? 5096);
for (const spec of (process.env['COMPARE'] ?? 'this=.').split(',')) {
  const [name, root] = spec.split('=') as [string, string];
  const server = await spawnServer({ LOG_LEVEL: 'error' }, FROM_SOURCE, resolve(root), ['prlimit', `--nofile=${LIMIT}:${LIMIT}`]);
  const m = (path: string, body: unknown) =>
    fetch(`${server.url}/api/v3/manage/${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-manage-token': MANAGE_TOKEN }, body: JSON.stringify(body) }).then(
      (r) => r.json() as Promise<{ data: Record<string, string> }>,
    );
  const app = (await m('createapplication', { name: 's' })).data;
  const token = (await m('createtoken', { applicationid: app['appid'], name: 'browser', scope: 'client' })).data['token'];
  const url = `${server.url.replace('http', 'ws')}/api/v3/${app['appid']}/ws?token=${token}`;
  const sockets: WebSocket[] = [];
  const closes = new Map<number, number>();
  const started = performance.now();
  const outcomes = await Promise.all(
    Array.from(
      { length: ASKED },
      () =>
        new Promise<string>((done) => {
          const s = new WebSocket(url);
          sockets.push(s);
          const timer = setTimeout(() => done('no answer in 60 s'), 60_000);
          const settle = (outcome: string) => {
            clearTimeout(timer);
            done(outcome);
          };
          s.once('open', () => {
            settle('open');
            s.once('close', (code) => closes.set(code, (closes.get(code) ?? 0) + 1));
          });
          s.once('unexpected-response', (_q, res) => settle(`refused ${res.statusCode}`));
          s.once('error', () => settle('error'));
        }),
    ),
  );
  const answeredIn = Math.round(performance.now() - started);
  const counts = new Map<string, number>();
  for (const o of outcomes) counts.set(o, (counts.get(o) ?? 0) + 1);
  const dispatcher = new Agent({ connect: { localAddress: '127.0.0.2' } });
  const timed = async (path: string, headers: Record<string, string> = {}) => {
    const t = performance.now();
    try {
      const r = await undiciFetch(`${server.url}${path}`, { headers, dispatcher, signal: AbortSignal.timeout(5000) });
      await r.text();
      return `${r.status} in ${Math.round(performance.now() - t)} ms`;
    } catch {
      return `no answer in ${Math.round(performance.now() - t)} ms`;
    }
  };
  const health = await timed('/healthz');
  const rest = await timed(`/api/v3/${app['appid']}/chat/rooms`, { 'x-api-token': token as string });
  console.log(
    `${name}: fd limit ${LIMIT}, ${ASKED} sockets from one address, all settled in ${answeredIn} ms: ${[...counts].map(([k, v]) => `${v} ${k}`).join(', ')}; from 127.0.0.2: /healthz ${health}, REST ${rest}; opened then closed by the server: ${[...closes].map(([k, v]) => `${v} × ${k}`).join(', ') || 'none'}`,
  );
  for (const s of sockets) s.terminate();
  await dispatcher.close();
  server.process.kill('SIGKILL');
}
process.exit(0);
