import { existsSync } from 'node:fs';
import { connect as connectTcp, createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, manage, newApp, request, type TestApp } from '../helpers/api.js';
import { spawnServer, type SpawnedServer } from '../helpers/spawn.js';
import { freePort } from '../helpers/free-port.js';
import { testPostgres, type Postgres } from '../chat/postgres.js';
import { open, wsUrl } from '../realtime/ws-client.js';

/**
 * The embedded database cannot become unreachable, so this runs on Postgres: DATABASE_URL when
 * set (CI), else a throwaway cluster of the local Postgres binaries. With neither, no test is
 * registered (there is nothing to cut off). The server reaches Postgres through a TCP proxy
 * in this process; closing the proxy makes the database unreachable, opening it again heals it.
 */
const canRun = (process.env['DATABASE_URL'] ?? '') !== '' || existsSync('/usr/lib/postgresql');

/** A TCP proxy to Postgres that can be cut (refuses and resets every connection) and restored. */
class CuttableProxy {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();

  constructor(
    readonly port: number,
    private readonly target: { host: string; port: number },
  ) {}

  async open(): Promise<void> {
    const server = createServer((client) => {
      const upstream = connectTcp(this.target.port, this.target.host);
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
        s.on('error', () => undefined);
      }
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.server = server;
  }

  async cut(): Promise<void> {
    const closed = new Promise((resolve) => this.server?.close(resolve));
    for (const s of this.sockets) s.destroy();
    await closed;
    this.server = undefined;
  }
}

describe.runIf(canRun)('the database out of reach', () => {
  let pg: Postgres;
  let proxy: CuttableProxy;
  let server: SpawnedServer;
  let app: TestApp;
  /** A token the server has not checked yet: checking it needs the database. */
  let unusedToken: string;

  beforeAll(async () => {
    pg = await testPostgres();
    const url = new URL(pg.url);
    proxy = new CuttableProxy(await freePort(), { host: url.hostname, port: Number(url.port || 5432) });
    await proxy.open();
    url.hostname = '127.0.0.1';
    url.port = String(proxy.port);
    server = await spawnServer({ DATABASE_URL: url.toString() });
    app = await newApp({}, server.url);
    unusedToken = (await manage('createtoken', { applicationid: app.appid, name: 'later' }, server.url)).body.data.token;
    expect((await app.api.post('chat/rooms', { name: 'before' })).status).toBe(200);
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
    pg?.stop();
  });

  const expectUnavailable = async (res: { status: number; body: { kind: string; code: number; message: string }; headers: Headers }) => {
    expect(res.status, JSON.stringify(res.body)).toBe(503);
    expect(res.body).toMatchObject({ kind: 'api.result', code: 503 });
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
  };

  it('answers 503 in the envelope with Retry-After, for writes, reads and token checks, then heals', async () => {
    await proxy.cut();
    const fresh = new Client(server.url, app.appid, unusedToken);
    await expectUnavailable(await app.api.post('chat/rooms', { name: 'during' }));
    await expectUnavailable(await app.api.get('chat/rooms'));
    await expectUnavailable(await fresh.get('chat/rooms'));
    await expectUnavailable(await new Client(server.url, app.appid, 'no-such-token').get('chat/rooms'));
    await expectUnavailable(await manage('createapplication', { name: 'during' }, server.url));
    expect((await request('GET', `${server.url}/readyz`)).status).toBe(503);

    const socket = await open(wsUrl(server.url, app.appid, `?token=${encodeURIComponent(unusedToken)}`));
    expect((await socket.closed).code).toBe(1013);

    await proxy.open();
    const deadline = Date.now() + 15_000;
    let healed = await fresh.post('chat/rooms', { name: 'after' });
    while (healed.status === 503 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200));
      healed = await fresh.post('chat/rooms', { name: 'after' });
    }
    expect(healed.status, JSON.stringify(healed.body)).toBe(200);
    expect(server.process.exitCode).toBeNull();
  }, 60_000);
});
