import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../test/helpers/spawn.js';
import type { CutProxy } from './cut-proxy.js';

export const HAPROXY = '/usr/sbin/haproxy';

/**
 * The cutting proxy as HAProxy (TCP mode, kernel splicing): the same cut and restore as the
 * proxy in Node, at a fraction of its CPU, which on a 2-core machine is CPU the server under test
 * gets. The cut disables the frontend (new connections are refused) and shuts every session down.
 */
export async function startHaproxyCutProxy(targetPort: number): Promise<CutProxy> {
  const dir = mkdtempSync(join(tmpdir(), 'engage-cut-proxy-'));
  const port = await freePort();
  const admin = join(dir, 'admin.sock');
  writeFileSync(
    join(dir, 'haproxy.cfg'),
    [
      'global',
      `  stats socket ${admin} level admin`,
      // About 2.5 descriptors a connection to HAProxy: within the 20,000 a process may open here.
      '  maxconn 7000',
      'defaults',
      '  mode tcp',
      '  option splice-auto',
      '  timeout connect 5s',
      '  timeout client 1h',
      '  timeout server 1h',
      'frontend fans',
      `  bind 127.0.0.1:${port}`,
      '  default_backend server',
      'backend server',
      `  server engage 127.0.0.1:${targetPort}`,
      '',
    ].join('\n'),
  );
  const child: ChildProcess = spawn(HAPROXY, ['-db', '-f', join(dir, 'haproxy.cfg')], { stdio: ['ignore', 'ignore', 'inherit'] });
  for (let i = 0; i < 100 && !existsSync(admin); i++) {
    if (child.exitCode !== null) throw new Error(`haproxy exited with ${child.exitCode}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const ask = (command: string) =>
    new Promise<string>((resolve, reject) => {
      let answer = '';
      const socket = connect(admin);
      socket
        .on('connect', () => socket.end(`${command}\n`))
        .on('data', (d) => (answer += d.toString()))
        .on('end', () => resolve(answer))
        .on('error', reject);
    });
  return {
    port,
    pid: child.pid as number,
    async cut() {
      await ask('disable frontend fans');
      await ask('shutdown sessions server server/engage');
    },
    async restore() {
      await ask('enable frontend fans');
    },
    stop() {
      child.kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
