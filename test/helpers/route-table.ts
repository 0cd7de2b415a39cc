import { type ChildProcess, spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { freshDataDir } from './data-template.js';
import type { ServedRoute } from './route-table-server.js';
import { MANAGE_TOKEN, NODE_FLAGS, stopProcess } from './spawn.js';

export type { ServedRoute };

export interface RouteTableServer {
  child: ChildProcess;
  port: number;
  routes: ServedRoute[];
  stop(): Promise<void>;
}

/** Starts a server of its own (a fresh embedded database unless DATABASE_URL is set) that reports the route table it serves. */
export async function startWithRouteTable(env: Record<string, string> = {}): Promise<RouteTableServer> {
  const dataDir = freshDataDir();
  const child = spawn(process.execPath, [...NODE_FLAGS, '--import', 'tsx', new URL('./route-table-server.ts', import.meta.url).pathname], {
    cwd: new URL('../..', import.meta.url).pathname,
    env: { ...process.env, HOST: '127.0.0.1', PORT: '0', DATA_DIR: dataDir, MANAGE_TOKEN, LOG_LEVEL: 'silent', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  const line = await new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', (d: Buffer) => {
      output += d.toString();
      if (output.includes('\n')) resolve(output.slice(0, output.indexOf('\n')));
    });
    child.once('exit', (code) => reject(new Error(`the route-table server exited with ${code}`)));
  });
  const started = JSON.parse(line) as { port: number; routes: ServedRoute[] };
  return {
    child,
    ...started,
    async stop() {
      await stopProcess(child, 5000);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
