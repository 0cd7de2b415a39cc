import { spawn } from 'node:child_process';
import { BUILT, spawnServer, type SpawnedServer } from '../../test/helpers/spawn.js';
import { freePort } from '../../test/helpers/free-port.js';
import { compactDialect, engageDialect, SocketPool } from '../ws-fanout-clients.js';
import { RawSocket } from '../ws-fanout-raw.js';
import { benchApp, type BenchApp } from './app.js';
import { cpuSeconds } from './cpu.js';
import { type Mode, QUERY, WireSocket } from './wire-socket.js';

const SOCKETS = Number(process.env['SOCKETS'] ?? 3000);
const CPU_EVENTS = Number(process.env['CPU_EVENTS'] ?? 300);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Bytes a plain and an engage-client socket receive catching up from `behind` (count events). */
export async function catchUpBytes(
  server: SpawnedServer,
  app: BenchApp,
  roomid: string,
  behind: string,
  count: number,
  same: (a: WireSocket, b: WireSocket, what: string) => void,
): Promise<Record<Mode, number>> {
  const sockets = { plain: await WireSocket.open(server.url, app.appid, app.token, 'plain'), compact: await WireSocket.open(server.url, app.appid, app.token, 'compact') };
  await sleep(200);
  for (const s of Object.values(sockets)) {
    s.mark();
    s.send({ type: 'subscribe', topic: `room:${roomid}`, cursor: behind });
  }
  await Promise.all(Object.values(sockets).map((s) => s.until(count)));
  same(sockets.plain, sockets.compact, 'catch-up');
  const bytes = { plain: sockets.plain.bytes, compact: sockets.compact.bytes };
  for (const s of Object.values(sockets)) s.close();
  return bytes;
}

/** Posts `count` messages at 100/s, round-robin over the authors; resolves once all are answered. */
async function postPaced(app: BenchApp, roomid: string, authors: string[], count: number): Promise<void> {
  const answered: Promise<unknown>[] = [];
  for (let i = 0; i < count; i++) {
    answered.push(app.call('POST', `chat/rooms/${roomid}/command`, { userid: authors[i % authors.length], command: `cpu bench message number ${i} t=${performance.now()}` }));
    if (i % 10 === 9) await sleep(100);
  }
  await Promise.all(answered);
}

/** Server CPU while `count` posts are made with the pool subscribed (or none). */
async function cpuOfPosts(server: SpawnedServer, app: BenchApp, roomid: string, authors: string[], pool: SocketPool | undefined): Promise<number> {
  const pid = server.process.pid as number;
  const before = cpuSeconds(pid);
  await postPaced(app, roomid, authors, CPU_EVENTS);
  const expected = (pool?.sockets.length ?? 0) * CPU_EVENTS;
  const deadline = performance.now() + 60_000;
  while (pool !== undefined && pool.deliveries < expected && performance.now() < deadline) await sleep(50);
  await sleep(300);
  if (pool !== undefined && pool.deliveries < expected) throw new Error(`${pool.deliveries} of ${expected} deliveries`);
  return cpuSeconds(pid) - before;
}

async function measure(server: SpawnedServer, app: BenchApp, authors: string[], mode: Mode): Promise<number> {
  const roomid = (await app.call<{ id: string }>('POST', 'chat/rooms', { name: `cpu ${mode}`, enableenterandexit: false, enableprofanityfilter: false })).id;
  for (const userid of authors) await app.call('POST', `chat/rooms/${roomid}/join`, { userid });
  const alone = await cpuOfPosts(server, app, roomid, authors, undefined);
  const pool = new SocketPool((mode === 'compact' ? compactDialect : engageDialect)(`room:${roomid}`), 1, 1_000_000);
  await pool.open([`${server.url.replace(/^http/, 'ws')}/api/v3/${app.appid}/ws?token=${encodeURIComponent(app.token)}${QUERY[mode]}`], SOCKETS);
  const withPool = await cpuOfPosts(server, app, roomid, authors, pool);
  pool.closeAll();
  return ((withPool - alone) * 1e6) / (SOCKETS * CPU_EVENTS);
}

/**
 * Server CPU per delivery: CPU_EVENTS posts with SOCKETS subscribers, less the same posts with none,
 * divided by the deliveries; for each mode on this server, and plain frames on today's (BENCH_ROOT).
 */
export async function cpuPerDelivery(server: SpawnedServer, app: BenchApp, authors: string[], benchRoot: string | undefined): Promise<{ name: string; sockets: number; micros: number }[]> {
  const speakers = authors.slice(0, 50);
  const rows = [];
  rows.push({ name: 'this, plain client', sockets: SOCKETS, micros: await measure(server, app, speakers, 'plain') });
  rows.push({ name: 'this, engage-client (compact)', sockets: SOCKETS, micros: await measure(server, app, speakers, 'compact') });
  if (benchRoot !== undefined) {
    const before = await spawnServer({ RATE_LIMITS: 'off', LOG_LEVEL: 'error', WS_MAX_CONNECTIONS_PER_ADDRESS: '1000000' }, BUILT, benchRoot);
    try {
      const beforeApp = await benchApp(before.url);
      const room = (await beforeApp.call<{ id: string }>('POST', 'chat/rooms', { name: 'users', enableenterandexit: false })).id;
      for (const userid of speakers)
        await beforeApp.call('POST', `chat/rooms/${room}/join`, {
          userid,
          displayname: userid,
          pictureurl: `https://cdn.example.com/avatars/${userid}.jpg`,
          profileurl: `https://example.com/u/${userid}`,
        });
      rows.push({ name: `today (${benchRoot}), plain client`, sockets: SOCKETS, micros: await measure(before, beforeApp, speakers, 'plain') });
    } finally {
      await before.stop();
    }
  }
  return rows;
}

/** Bare uWS publishing a frame of `frameBytes` to SOCKETS sockets that offer permessage-deflate: CPU per delivery with the shared compressor and without. */
export async function deflateCost(frameBytes: number): Promise<{ sockets: number; off: number; on: number }> {
  const run = async (compress: boolean) => {
    const port = await freePort();
    const child = spawn(process.execPath, ['--import', 'tsx', 'bench/uws-fanout-server.ts'], {
      env: { ...process.env, PORT: String(port), FRAME_BYTES: String(frameBytes), COMPRESS: compress ? 'shared' : 'none' },
      stdio: 'ignore',
    });
    await sleep(1500);
    let deliveries = 0;
    const sockets: RawSocket[] = [];
    for (let i = 0; i < SOCKETS; i++) {
      const socket = await RawSocket.open(`ws://127.0.0.1:${port}/`, () => deliveries++, undefined, 'permessage-deflate; client_max_window_bits');
      socket.send('{"type":"subscribe"}');
      sockets.push(socket);
    }
    await sleep(500);
    deliveries = 0;
    const before = cpuSeconds(child.pid as number);
    for (let i = 0; i < CPU_EVENTS; i++) {
      await fetch(`http://127.0.0.1:${port}/publish`, { method: 'POST', body: `message ${i}` });
      if (i % 10 === 9) await sleep(100);
    }
    while (deliveries < SOCKETS * CPU_EVENTS) await sleep(50);
    await sleep(300);
    const micros = ((cpuSeconds(child.pid as number) - before) * 1e6) / deliveries;
    for (const socket of sockets) socket.close();
    child.kill();
    return micros;
  };
  return { sockets: SOCKETS, off: await run(false), on: await run(true) };
}
