import { existsSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { startHaproxy } from '../../test/helpers/haproxy.js';
import { freePort } from '../../test/helpers/free-port.js';
import type { CutProxy } from './cut-proxy.js';

/**
 * The cutting proxy as HAProxy (TCP mode, kernel splicing): the same cut and restore as the
 * proxy in Node, at a fraction of its CPU, which on a 2-core machine is CPU the server under test
 * gets. The server's side is always spliced (`splice-response`, not left to `splice-auto`'s
 * guess): a crowd's catch-up is over a gigabyte of frames, which HAProxy then moves without
 * copying it through its own memory (half its CPU in the recovery). The cut disables the
 * frontend (new connections are refused) and shuts every session down.
 */
export async function startHaproxyCutProxy(targetPort: number): Promise<CutProxy> {
  const port = await freePort();
  const adminOf = (dir: string) => join(dir, 'admin.sock');
  const haproxy = await startHaproxy(
    (dir) => [
      'global',
      `  stats socket ${adminOf(dir)} level admin`,
      // About 2.5 descriptors a connection to HAProxy: within the 20,000 a process may open here.
      '  maxconn 7000',
      'defaults',
      '  mode tcp',
      '  option splice-response',
      '  timeout connect 5s',
      '  timeout client 1h',
      '  timeout server 1h',
      'frontend fans',
      `  bind 127.0.0.1:${port}`,
      '  default_backend server',
      'backend server',
      `  server engage 127.0.0.1:${targetPort}`,
    ],
    async (dir) => existsSync(adminOf(dir)),
  );
  const ask = (command: string) =>
    new Promise<string>((resolve, reject) => {
      let answer = '';
      const socket = connect(adminOf(haproxy.dir));
      socket
        .on('connect', () => socket.end(`${command}\n`))
        .on('data', (d) => (answer += d.toString()))
        .on('end', () => resolve(answer))
        .on('error', reject);
    });
  return {
    port,
    pid: haproxy.pid,
    async cut() {
      await ask('disable frontend fans');
      await ask('shutdown sessions server server/engage');
    },
    async restore() {
      await ask('enable frontend fans');
    },
    stop: haproxy.stop,
  };
}
