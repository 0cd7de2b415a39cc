import { Agent, fetch as undiciFetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { newApp, type TestApp } from '../helpers/api.js';
import { spawnServer, type SpawnedServer } from '../helpers/spawn.js';
import { SseReader } from '../realtime/sse-reader.js';

// Loopback answers every 127.x.y.z: a client bound to 127.0.0.2 is "another address" to the server.
const OTHER_ADDRESS = '127.0.0.2';
// Scaled down for CI; the figures: SOCKETS_FILE_LIMIT=4096 SOCKETS_ASKED=5096.
const FILE_LIMIT = Number(process.env['SOCKETS_FILE_LIMIT'] ?? 1024);
/** More sockets than the file-descriptor limit allows. */
const ASKED = Number(process.env['SOCKETS_ASKED'] ?? 1300);

interface Outcome {
  kind: 'open' | 'refused' | 'error';
  status?: number;
  retryAfter?: string | undefined;
  ms: number;
  socket?: WebSocket;
}

/** One upgrade with the app's token; settles on open, on a refusing answer, or on an error. */
function connect(url: string, headers: Record<string, string> = {}, localAddress?: string): Promise<Outcome> {
  const started = performance.now();
  return new Promise((resolve) => {
    const socket = new WebSocket(url, { headers, localAddress });
    socket.once('open', () => resolve({ kind: 'open', ms: performance.now() - started, socket }));
    socket.once('unexpected-response', (_req, res) => {
      resolve({ kind: 'refused', status: res.statusCode, retryAfter: res.headers['retry-after'], ms: performance.now() - started });
      res.resume();
      socket.terminate();
    });
    socket.once('error', () => resolve({ kind: 'error', ms: performance.now() - started }));
  });
}

const wsUrl = (server: SpawnedServer, app: TestApp) => `${server.url.replace('http', 'ws')}/api/v3/${app.appid}/ws?token=${app.token}`;

describe(`sockets under a file-descriptor limit of ${FILE_LIMIT}`, () => {
  let server: SpawnedServer;
  let app: TestApp;
  const opened: WebSocket[] = [];

  beforeAll(async () => {
    server = await spawnServer({ LOG_LEVEL: 'info', RATE_LIMIT_AUTH_FAILURES: '100000/1m' }, undefined, undefined, ['prlimit', `--nofile=${FILE_LIMIT}:${FILE_LIMIT}`]);
    app = await newApp({}, server.url);
  }, 60_000);
  afterAll(async () => {
    for (const socket of opened) socket.terminate();
    await server?.stop();
  });

  it('says in its log how many connections the limit allows', async () => {
    const loggedLine = () =>
      server
        .stdout()
        .split('\n')
        .find((l) => l.includes('long-lived connections admitted'));
    // Log lines are written within a second of being logged (pino's buffered destination).
    await expect.poll(loggedLine, { timeout: 3000 }).toBeDefined();
    const line = loggedLine();
    const logged = JSON.parse(line as string) as { fileDescriptorLimit: number; maxConnections: number; reserve: number };
    expect(logged.fileDescriptorLimit).toBe(FILE_LIMIT);
    expect(logged.maxConnections).toBe(FILE_LIMIT - logged.reserve);
    expect(logged.reserve).toBeGreaterThanOrEqual(256);
  });

  it(`answers ${ASKED} sockets from one address at once, past the cap with 503 and Retry-After, and keeps serving another address`, async () => {
    const outcomes = await Promise.all(Array.from({ length: ASKED }, () => connect(wsUrl(server, app))));
    for (const o of outcomes) if (o.socket !== undefined) opened.push(o.socket);
    const open = outcomes.filter((o) => o.kind === 'open');
    const refused = outcomes.filter((o) => o.kind === 'refused');
    // Every upgrade was answered: none hung, none failed without an answer.
    expect(open.length + refused.length).toBe(ASKED);
    expect(open.length).toBeLessThan(FILE_LIMIT - 200);
    console.log(`${ASKED} asked: ${open.length} open, ${refused.length} refused (slowest answer ${Math.round(Math.max(...outcomes.map((o) => o.ms)))} ms)`);
    expect(refused.length).toBeGreaterThan(0);
    for (const r of refused) {
      expect(r.status).toBe(503);
      expect(Number(r.retryAfter)).toBeGreaterThanOrEqual(1);
    }

    // With every place taken, another address still gets HTTP answers within a second...
    const dispatcher = new Agent({ connect: { localAddress: OTHER_ADDRESS } });
    const timed = async (path: string, headers: Record<string, string> = {}) => {
      const started = performance.now();
      const res = await undiciFetch(`${server.url}${path}`, { headers, dispatcher, signal: AbortSignal.timeout(5000) });
      await res.text();
      return { status: res.status, ms: performance.now() - started };
    };
    const health = await timed('/healthz');
    expect(health.status).toBe(200);
    expect(health.ms).toBeLessThan(1000);
    const rest = await timed(`/api/v3/${app.appid}/chat/rooms`, { 'x-api-token': app.token });
    expect(rest.status).toBe(200);
    expect(rest.ms).toBeLessThan(1000);
    console.log(`from another address: /healthz ${Math.round(health.ms)} ms, REST ${Math.round(rest.ms)} ms`);
    await dispatcher.close();

    // ...and a socket asked for while the process is full is refused at once, not left hanging.
    const late = await connect(wsUrl(server, app), {}, OTHER_ADDRESS);
    expect(late).toMatchObject({ kind: 'refused', status: 503 });
    expect(late.ms).toBeLessThan(1000);

    // Places come back as sockets close.
    for (const socket of opened.splice(0, 10)) socket.close();
    await new Promise((r) => setTimeout(r, 300));
    const again = await connect(wsUrl(server, app), {}, OTHER_ADDRESS);
    expect(again.kind).toBe('open');
    opened.push(again.socket as WebSocket);
  }, 60_000);
});

describe('sockets per client address', () => {
  let server: SpawnedServer;
  let app: TestApp;
  const opened: WebSocket[] = [];

  beforeAll(async () => {
    server = await spawnServer({ WS_MAX_CONNECTIONS_PER_ADDRESS: '3', TRUST_PROXY: '1' });
    app = await newApp({}, server.url);
  }, 60_000);
  afterAll(async () => {
    for (const socket of opened) socket.terminate();
    await server?.stop();
  });

  const keep = (o: Outcome) => {
    if (o.socket !== undefined) opened.push(o.socket);
    return o;
  };

  it('refuses an address past its cap with 429 and Retry-After, other addresses (as TRUST_PROXY names them) still connect', async () => {
    const from = (address: string) => ({ 'x-forwarded-for': address });
    for (let i = 0; i < 3; i++) expect(keep(await connect(wsUrl(server, app), from('203.0.113.7'))).kind).toBe('open');
    const refused = keep(await connect(wsUrl(server, app), from('203.0.113.7')));
    expect(refused).toMatchObject({ kind: 'refused', status: 429 });
    expect(Number(refused.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(refused.ms).toBeLessThan(1000);
    // A client cannot claim another address in front of the one the proxy appended.
    expect(keep(await connect(wsUrl(server, app), from('198.51.100.1, 203.0.113.7'))).status).toBe(429);
    expect(keep(await connect(wsUrl(server, app), from('203.0.113.8'))).kind).toBe('open');

    // A closed socket gives its place back.
    opened.shift()?.close();
    await new Promise((r) => setTimeout(r, 300));
    expect(keep(await connect(wsUrl(server, app), from('203.0.113.7'))).kind).toBe('open');
  });

  it('counts event streams against the same cap: a stream past it is refused with 429 and Retry-After, a closed one gives its place back', async () => {
    const roomid = (await app.api.post('chat/rooms', { name: 'sse-cap' })).body.data.id as string;
    const stream = () => SseReader.open(`${server.url}/api/v3/${app.appid}/sse?topic=room:${roomid}&token=${app.token}`, { 'x-forwarded-for': '203.0.113.9' });
    const streams: SseReader[] = [];
    try {
      for (let i = 0; i < 2; i++) streams.push(await stream());
      expect(streams.map((s) => s.status)).toEqual([200, 200]);
      expect(keep(await connect(wsUrl(server, app), { 'x-forwarded-for': '203.0.113.9' })).kind).toBe('open');
      const refused = await stream();
      streams.push(refused);
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(JSON.parse(refused.body).code).toBe(429);
      await streams[0]?.close();
      await new Promise((r) => setTimeout(r, 300));
      const again = await stream();
      streams.push(again);
      expect(again.status).toBe(200);
    } finally {
      for (const s of streams) await s.close();
    }
  });
});
