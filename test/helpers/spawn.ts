import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { buildServerIfStale } from './built-server.js';
import { freshDataDir } from './data-template.js';
import { freePort } from './free-port.js';

export const MANAGE_TOKEN = 'test-manage-token-0123456789';
/** The V8 flags `npm start` and the Dockerfile run the server with (see the README). */
export const NODE_FLAGS = ['--max-semi-space-size=64'];
/**
 * V8 flags a suite adds for the servers its files start (vitest.config.ts: `npm test` compiles the
 * embedded database's WebAssembly with the baseline compiler alone); space-separated.
 */
const SUITE_NODE_FLAGS = (process.env['ENGAGE_TEST_NODE_FLAGS'] ?? '').split(' ').filter((flag) => flag !== '');
const ROOT = new URL('../..', import.meta.url).pathname;
/** How the server is run: built (`npm run build`, what production and the tests run; each suite's global setup builds it), or from source through tsx. */
export const BUILT = ['dist/main.js'];
export const FROM_SOURCE = ['--import', 'tsx', 'src/main.ts'];

export interface SpawnedServer {
  url: string;
  port: number;
  process: ChildProcess;
  /** Standard output and standard error, interleaved as they arrived. */
  output(): string;
  stdout(): string;
  /** Kills the process on purpose (SIGKILL unless told otherwise) and waits for it to exit: `stop()` then takes the death as intended. */
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** Stops the process; throws when it had died before (a crash), naming its exit code or signal and the end of its output. */
  stop(): Promise<void>;
}

/** This process has made sure dist/ is as new as src/ (the suites' global setups do it before any file runs, so files never build at once). */
let builtChecked: Promise<void> | undefined;

/**
 * Starts the real server (built from src/ into dist/, of this checkout unless `root` names another) as its own process on a free loopback port. It uses
 * DATABASE_URL / REDIS_URL from the environment when set, else a fresh embedded database. It stops without the
 * drain (SHUTDOWN_DRAIN_SECONDS=0) and holds a storage reserve of 1 MB (STORAGE_RESERVE) unless `env` says otherwise. `launcher` runs Node
 * (e.g. `['prlimit', '--nofile=1024:1024']`).
 */
export async function spawnServer(env: Record<string, string> = {}, entry = BUILT, root = ROOT, launcher: string[] = []): Promise<SpawnedServer> {
  if (entry === BUILT && root === ROOT) {
    builtChecked ??= buildServerIfStale();
    await builtChecked;
  }
  // A restart passes the port the process it replaces had.
  if (env['PORT'] !== undefined) return startProcess(Number(env['PORT']), env, entry, root, launcher);
  // freePort's port is free only until another file's server takes it: the server, listening exclusively, then does not start, and this one tries another.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startProcess(await freePort(), env, entry, root, launcher);
    } catch (err) {
      if (!(err instanceof PortTaken) || attempt === PORT_ATTEMPTS) throw err;
    }
  }
}

const PORT_ATTEMPTS = 5;

class PortTaken extends Error {}

async function startProcess(port: number, env: Record<string, string>, entry: string[], root: string, launcher: string[]): Promise<SpawnedServer> {
  const dataDir = env['DATA_DIR'] ?? freshDataDir();
  const ownsDataDir = env['DATA_DIR'] === undefined;
  const [command, ...args] = [...launcher, process.execPath, ...NODE_FLAGS, ...SUITE_NODE_FLAGS, ...entry] as [string, ...string[]];
  const child = spawn(command, args, {
    cwd: root,
    env: {
      ...process.env,
      HOST: '127.0.0.1',
      PORT: String(port),
      MANAGE_TOKEN,
      DATA_DIR: dataDir,
      LOG_LEVEL: process.env['TEST_LOG_LEVEL'] ?? 'warn',
      SHUTDOWN_DRAIN_SECONDS: '0',
      // The suite starts hundreds of servers, each on a data directory of its own: 64 MB of reserve each (docs/storage.md) would be gigabytes written.
      STORAGE_RESERVE: '1mb',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let stdout = '';
  child.stdout?.on('data', (d: Buffer) => {
    output += d.toString();
    stdout += d.toString();
  });
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const outputClosed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  let killedOnPurpose = false;
  let stopped: Promise<void> | undefined;
  const url = `http://127.0.0.1:${port}`;
  // A first start on the embedded default creates its database (initdb): seconds of CPU, more on a busy machine.
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (exitOf(child) !== undefined) {
      if (ownsDataDir) rmSync(dataDir, { recursive: true, force: true });
      await Promise.race([outputClosed, new Promise((r) => setTimeout(r, 1000))]);
      const message = `server exited with ${child.exitCode ?? child.signalCode}:\n${output}`;
      throw output.includes('Cannot listen on ') ? new PortTaken(message) : new Error(message);
    }
    try {
      const res = await fetch(`${url}/healthz`);
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`server did not start:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    port,
    process: child,
    output: () => output,
    stdout: () => stdout,
    async kill(signal = 'SIGKILL') {
      killedOnPurpose = true;
      child.kill(signal);
      await exited;
    },
    stop() {
      stopped ??= stopOnce();
      return stopped;
    },
  };

  async function stopOnce(): Promise<void> {
    const diedBefore = exitOf(child);
    await stopProcess(child, 5000);
    if (ownsDataDir) rmSync(dataDir, { recursive: true, force: true });
    // A death only just before (not yet reaped) shows as an end the stop would not have caused.
    const ended = exitOf(child) as string;
    if (killedOnPurpose || (diedBefore === undefined && STOPPED.includes(ended))) return;
    // The last of its stderr may still be in the pipe when the exit is seen.
    await Promise.race([outputClosed, new Promise((r) => setTimeout(r, 1000))]);
    const how = diedBefore === undefined ? 'ended, not as a stop ends it' : 'died before it was stopped';
    throw new Error(`the server on port ${port} ${how} (${ended}); the end of its output:\n${output.slice(-OUTPUT_TAIL_CHARS)}`);
  }
}

/** How much of a dead server's output a crash report shows. */
const OUTPUT_TAIL_CHARS = 4000;

/** How a server ends when stopProcess stops it: its SIGTERM handler exits with 0, or the SIGKILL after the grace period. */
const STOPPED = ['exit code 0', 'signal SIGTERM', 'signal SIGKILL'];

/** How a process that has exited ended ('exit code 1', 'signal SIGSEGV'), or undefined while it runs. */
function exitOf(child: ChildProcess): string | undefined {
  if (child.exitCode !== null) return `exit code ${child.exitCode}`;
  if (child.signalCode !== null) return `signal ${child.signalCode}`;
  return undefined;
}

/** SIGTERM, then SIGKILL if the process has not exited within `graceMs`; resolves once it has exited. */
export async function stopProcess(child: ChildProcess, graceMs: number): Promise<void> {
  if (exitOf(child) !== undefined) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await Promise.race([exited, new Promise((r) => setTimeout(r, graceMs))]);
  if (exitOf(child) !== undefined) return;
  child.kill('SIGKILL');
  await exited;
}
