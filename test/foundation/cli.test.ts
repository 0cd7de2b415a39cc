import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, request } from '../helpers/api.js';
import { MANAGE_TOKEN, spawnServer, type SpawnedServer } from '../helpers/spawn.js';
import { expectEnvelope } from './util.js';
import { freshDataDir } from '../helpers/data-template.js';

const ROOT = new URL('../..', import.meta.url).pathname;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The CLI's subject is the embedded database, also when the suite runs on Postgres. */
const EMBEDDED = { DATABASE_URL: '', REDIS_URL: '' };

function createApp(args: string[], env: Record<string, string>): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/create-app.ts', ...args], {
      cwd: ROOT,
      env: { ...process.env, LOG_LEVEL: 'warn', ...EMBEDDED, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.once('error', reject);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

function field(output: string, name: string): string {
  const match = new RegExp(`^${name}:\\s*(\\S+)\\s*$`, 'm').exec(output);
  if (match === null) throw new Error(`no ${name} in ${JSON.stringify(output)}`);
  return match[1] as string;
}

describe('npm run app:create', () => {
  let dataDir: string;
  let server: SpawnedServer | undefined;
  beforeAll(() => {
    // An embedded database made before (the server started once): its first start is not this test's subject.
    dataDir = freshDataDir();
  });
  afterAll(async () => {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('without --name: usage on stderr and exit code 2', async () => {
    const run = await createApp([], { DATA_DIR: dataDir });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--name');
    expect(run.stdout).toBe('');
  }, 90_000);

  it('creates an application whose printed token the server then accepts', async () => {
    const run = await createApp(['--name', 'From CLI'], { DATA_DIR: dataDir });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const appid = field(run.stdout, 'appid');
    const token = field(run.stdout, 'token');

    server = await spawnServer({ ...EMBEDDED, DATA_DIR: dataDir });
    const api = new Client(server.url, appid, token);
    const created = await api.post('user/users/cli-user', { displayname: 'Cli User' });
    expectEnvelope(created, 200);
    expect(created.body.data.userid).toBe('cli-user');
    expectEnvelope(await api.get('user/users/cli-user'), 200);
    expect((await request('GET', `${server.url}/api/v3/${appid}/user/users/`, undefined, { 'x-api-token': `${token}x` })).status).toBe(403);
    const stored = await request('GET', `${server.url}/api/v3/manage/applications/${appid}`, undefined, { 'x-manage-token': MANAGE_TOKEN });
    expect(stored.body.data).toMatchObject({ name: 'From CLI', jwtsecret: field(run.stdout, 'jwtsecret'), webhooksecret: field(run.stdout, 'webhooksecret') });
  }, 90_000);

  it('refuses to open the embedded database while a server uses it, with a hint', async () => {
    expect(server).toBeDefined();
    const run = await createApp(['--name', 'Second'], { DATA_DIR: dataDir });
    expect(run.code).not.toBe(0);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/stop the server/i);
  }, 90_000);
});
