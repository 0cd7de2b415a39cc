import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stopProcess } from './spawn.js';

/** Where Debian's haproxy package puts the program (CI installs it). */
export const HAPROXY = '/usr/sbin/haproxy';

export interface Haproxy {
  /** The directory of its configuration, for files it makes there (an admin socket). */
  dir: string;
  pid: number;
  stop(): Promise<void>;
}

/**
 * HAProxy in the foreground on the configuration `config` writes (given the directory it lives in),
 * resolved once `ready` answers true (within 10 s).
 */
export async function startHaproxy(config: (dir: string) => string[], ready: (dir: string) => Promise<boolean>): Promise<Haproxy> {
  const dir = mkdtempSync(join(tmpdir(), 'engage-haproxy-'));
  const file = join(dir, 'haproxy.cfg');
  writeFileSync(file, [...config(dir), ''].join('\n'));
  const child: ChildProcess = spawn(HAPROXY, ['-db', '-f', file], { stdio: ['ignore', 'ignore', 'inherit'] });
  const stop = async () => {
    await stopProcess(child, 2000);
    rmSync(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 10_000;
  while (!(await ready(dir))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(child.exitCode !== null ? `haproxy exited with ${child.exitCode}` : 'haproxy was not ready within 10 s');
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return { dir, pid: child.pid as number, stop };
}
