import { spawn, type ChildProcess } from 'node:child_process';
import { FROM_SOURCE, NODE_FLAGS, spawnServer, stopProcess, type SpawnedServer } from '../test/helpers/spawn.js';
import { freePort } from '../test/helpers/free-port.js';
import { benchApp } from './lib/app.js';
import { joinSpeakers } from './lib/limits.js';
import { compactDialect, engageDialect, socketIoDialect, type Dialect } from './ws-fanout-clients.js';

/** A server (one or more nodes) under test: where sockets connect and how a message is posted. */
export interface Target {
  name: string;
  pids: number[];
  /** One WebSocket URL per node. */
  urls: string[];
  dialect: Dialect;
  /** Posts one message (to the first node) carrying `text`; resolves with the HTTP status. */
  post(text: string): Promise<number>;
  stop(): Promise<void>;
}

const ROOT = new URL('..', import.meta.url).pathname;
/** Every server the bench starts collects its garbage on SIGUSR2 (bench/lib/gc-on-signal.mjs), for a steady memory reading. */
export const COLLECTABLE = ['--import', new URL('./lib/gc-on-signal.mjs', import.meta.url).pathname, ...profiling()];

/** With PROFILE_DIR set, every server writes a V8 CPU profile there when it stops (open it in Chrome's DevTools). */
function profiling(): string[] {
  const dir = process.env['PROFILE_DIR'];
  return dir === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${dir}`];
}

/**
 * Our server: a room, `speakers` joined users, messages posted through `chat/rooms/{id}/command`
 * by each user in turn (the server runs with the default per-user rate limits).
 */
export async function engageTarget(nodes: number, env: Record<string, string>, speakers: number, compact = false, root = ROOT): Promise<Target> {
  const servers: SpawnedServer[] = [];
  // Every bench socket comes from this one address: the per-address cap would refuse most.
  const oneAddress = { WS_MAX_CONNECTIONS_PER_ADDRESS: '1000000' };
  for (let i = 0; i < nodes; i++) servers.push(await spawnServer({ LOG_LEVEL: 'error', ...oneAddress, ...env }, [...COLLECTABLE, ...FROM_SOURCE], root));
  const app = await benchApp((servers[0] as SpawnedServer).url);
  const roomid = (await app.call<{ id: string }>('POST', 'chat/rooms', { name: 'bench', enableenterandexit: false, enableprofanityfilter: false })).id;
  const users = await joinSpeakers(app, roomid, speakers);
  let turn = 0;
  return {
    name: `engage (uWS) ${nodes} node${nodes > 1 ? 's' : ''}${compact ? ', compact frames' : ''}${root === ROOT ? '' : ` (${root})`}`,
    pids: servers.map((s) => s.process.pid as number),
    urls: servers.map((s) => `${s.url.replace('http', 'ws')}/api/v3/${app.appid}/ws?token=${encodeURIComponent(app.token)}${compact ? '&encoding=compact' : ''}`),
    dialect: (compact ? compactDialect : engageDialect)(`room:${roomid}`),
    post: async (text) => (await send(app.url(`chat/rooms/${roomid}/command`), { userid: users[turn++ % users.length], command: text }, { 'x-api-token': app.token })).status,
    stop: async () => {
      await Promise.all(servers.map((s) => s.stop()));
    },
  };
}

/** The machine's fan-out ceiling: bare uWS publishing a frame of our size (bench/uws-fanout-server.ts), plain or compact. */
export async function bareTarget(frameBytes = 1200): Promise<Target> {
  const port = await freePort();
  const child = spawn(process.execPath, [...NODE_FLAGS, ...COLLECTABLE, '--import', 'tsx', 'bench/uws-fanout-server.ts'], {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port), FRAME_BYTES: String(frameBytes) },
    stdio: 'ignore',
  });
  await waitForHttp(`http://127.0.0.1:${port}/`);
  return {
    name: `bare uWS 1 node (ceiling, ${frameBytes}-byte frames)`,
    pids: [child.pid as number],
    urls: [`ws://127.0.0.1:${port}/`],
    dialect: engageDialect('bench'),
    post: async (text) => (await send(`http://127.0.0.1:${port}/publish`, text)).status,
    stop: () => stopChild(child),
  };
}

/** The Socket.IO 4 baseline (bench/socketio-server.ts), with the Redis adapter when several nodes. */
export async function socketIoTarget(nodes: number, redisUrl: string | undefined): Promise<Target> {
  const children: ChildProcess[] = [];
  const ports: number[] = [];
  for (let i = 0; i < nodes; i++) {
    const port = await freePort();
    const env: Record<string, string> = { ...(process.env as Record<string, string>), PORT: String(port), LOG_LEVEL: 'error' };
    if (nodes > 1 && redisUrl !== undefined) env['REDIS_URL'] = redisUrl;
    else delete env['REDIS_URL'];
    // The same V8 flags as our server, so the comparison is of the code alone.
    children.push(spawn(process.execPath, [...NODE_FLAGS, ...COLLECTABLE, '--import', 'tsx', 'bench/socketio-server.ts'], { cwd: ROOT, env, stdio: 'ignore' }));
    ports.push(port);
    await waitForHttp(`http://127.0.0.1:${port}/`);
  }
  const base = `http://127.0.0.1:${ports[0]}`;
  return {
    name: `socket.io 4 ${nodes} node${nodes > 1 ? 's (redis-adapter)' : ''}`,
    pids: children.map((c) => c.pid as number),
    urls: ports.map((p) => `ws://127.0.0.1:${p}/socket.io/?EIO=4&transport=websocket&room=bench`),
    dialect: socketIoDialect,
    post: async (text) => (await send(`${base}/rooms/bench/messages`, { body: text })).status,
    stop: async () => {
      await Promise.all(children.map(stopChild));
    },
  };
}

export const stopChild = (child: ChildProcess) => stopProcess(child, 3000);

async function send(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  await res.arrayBuffer();
  return res;
}

export async function waitForHttp(url: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      await fetch(url);
      return;
    } catch {
      if (Date.now() > deadline) throw new Error(`${url} did not start`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}
