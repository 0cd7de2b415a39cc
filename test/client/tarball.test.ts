import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newApp, uid, type TestApp } from '../helpers/api.js';

/**
 * The package as a developer gets it: `npm pack` of client/, installed from the tarball by a
 * scratch project that knows nothing of this repository; an ESM consumer follows a room of the
 * running server, and a TypeScript consumer compiles against the shipped types and runs.
 */
const run = promisify(execFile);
const CLIENT = new URL('../../client/', import.meta.url).pathname;
const WS = new URL('../../node_modules/ws/wrapper.mjs', import.meta.url).href;
const TSC = new URL('../../node_modules/typescript/bin/tsc', import.meta.url).pathname;
const scratch = mkdtempSync(join(tmpdir(), 'engage-client-app-'));
let app: TestApp;
let tarball: string;

const CONSUMER = `import { LiveClient } from 'engage-client';
import WebSocket from ${JSON.stringify(WS)};
const [endpoint, appId, apiToken, roomid] = process.argv.slice(2);
const live = new LiveClient({ endpoint, appId, apiToken, WebSocket });
live.subscribe('room:' + roomid, {
  onSubscribed: () => console.log('subscribed'),
  onEvent: (event, meta) => {
    console.log(JSON.stringify({ body: event.body, seq: meta.seq }));
    live.close();
  },
});
`;

const TS_CONSUMER = `import { LiveClient, type EventMeta, type LiveConfig, type SocketLike, type Subscription } from 'engage-client';
class QuietSocket implements SocketLike {
  readyState = 0;
  onopen = null;
  onmessage = null;
  onclose = null;
  onerror = null;
  constructor(readonly url: string) {}
  send(_data: string): void {}
  close(): void {}
}
const config: LiveConfig = { appId: 'app', apiToken: 'client-token', endpoint: 'https://engage.example.com/api/v3', WebSocket: QuietSocket };
// @ts-expect-error reconnectDelayMs is a number of milliseconds
const wrong: LiveConfig = { reconnectDelayMs: 'soon' };
const live = new LiveClient(config);
const sub: Subscription = live.subscribe<{ id: string }>('room:r1', { onEvent: (event: { id: string }, meta: EventMeta) => console.log(event.id, meta.seq) });
console.log(JSON.stringify({ state: live.state, topic: sub.topic, wrong: typeof wrong }));
live.close();
`;

beforeAll(async () => {
  app = await newApp();
  // The build is the repository's (npm run build:client); packing here only packs it.
  const packed = await run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', scratch], { cwd: CLIENT });
  tarball = join(scratch, (JSON.parse(packed.stdout) as { filename: string }[])[0]?.filename as string);
  writeFileSync(join(scratch, 'package.json'), JSON.stringify({ name: 'fan-app', version: '1.0.0', private: true, type: 'module' }));
  await run('npm', ['install', '--offline', '--no-audit', '--no-fund', tarball], { cwd: scratch });
}, 120_000);

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('the engage-client tarball', () => {
  it('holds the build, its types, the README and the licence, and nothing else', async () => {
    const listed = (await run('tar', ['-tzf', tarball])).stdout.trim().split('\n');
    expect(listed.filter((f) => !f.endsWith('.d.ts')).sort()).toEqual(['package/LICENSE', 'package/README.md', 'package/dist/index.js', 'package/package.json']);
    expect(listed.filter((f) => f.endsWith('.d.ts'))).toEqual(expect.arrayContaining(['package/dist/index.d.ts', 'package/dist/types.d.ts']));
    expect(listed.every((f) => f.startsWith('package/dist/') || !f.endsWith('.d.ts'))).toBe(true);
    const pkg = JSON.parse(readFileSync(join(scratch, 'node_modules/engage-client/package.json'), 'utf8'));
    expect(pkg).toMatchObject({ name: 'engage-client', license: 'MIT', sideEffects: false, exports: { '.': { types: './dist/index.d.ts', import: './dist/index.js' } } });
  });

  it('is imported by an ESM app that follows a room of the running server', async () => {
    writeFileSync(join(scratch, 'consumer.mjs'), CONSUMER);
    const roomid = (await app.api.post('chat/rooms', { name: uid('tarball room') })).body.data.id as string;
    const userid = uid('fan');
    expect((await app.api.post(`chat/rooms/${roomid}/join`, { userid })).status).toBe(200);
    const child = spawn(process.execPath, ['consumer.mjs', `${app.api.base}/api/v3`, app.appid, app.token, roomid], { cwd: scratch });
    let out = '';
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const subscribed = new Promise<void>((resolve) =>
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('subscribed')) resolve();
      }),
    );
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    await Promise.race([subscribed, exited]);
    expect((await app.api.post(`chat/rooms/${roomid}/command`, { userid, command: 'hello from the tarball' })).status).toBe(200);
    expect(await exited, out).toBe(0);
    expect(JSON.parse(out.trim().split('\n').at(-1) as string)).toMatchObject({ body: 'hello from the tarball', seq: expect.any(Number) });
  }, 60_000);

  it('type-checks a TypeScript app against the shipped declarations, which then runs', async () => {
    writeFileSync(join(scratch, 'consumer.ts'), TS_CONSUMER);
    const tsconfig = {
      compilerOptions: { target: 'ES2022', module: 'nodenext', moduleResolution: 'nodenext', strict: true, outDir: 'out', types: [], lib: ['ES2022', 'DOM'] },
      files: ['consumer.ts'],
    };
    writeFileSync(join(scratch, 'tsconfig.json'), JSON.stringify(tsconfig));
    await run(process.execPath, [TSC, '-p', 'tsconfig.json'], { cwd: scratch });
    const ran = await run(process.execPath, ['out/consumer.js'], { cwd: scratch });
    expect(JSON.parse(ran.stdout.trim())).toEqual({ state: 'connecting', topic: 'room:r1', wrong: 'object' });
  }, 60_000);
});
