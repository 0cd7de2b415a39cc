import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../helpers/spawn.js';

export interface Postgres {
  url: string;
  stop(): void;
}

/**
 * The Postgres a multi-node test runs on: DATABASE_URL when given (CI), else a throwaway
 * cluster of the local Postgres binaries on a free port, removed by stop().
 */
export async function testPostgres(): Promise<Postgres> {
  const given = process.env['DATABASE_URL'];
  if (given !== undefined && given !== '') return { url: given, stop: () => undefined };
  const root = '/usr/lib/postgresql';
  const version = existsSync(root) ? readdirSync(root).sort().at(-1) : undefined;
  if (version === undefined) throw new Error('Multi-node chat tests need DATABASE_URL or local Postgres binaries under /usr/lib/postgresql.');
  const bin = join(root, version, 'bin');
  const dir = mkdtempSync(join(tmpdir(), 'chat-pg-'));
  chmodSync(dir, 0o777);
  const data = join(dir, 'data');
  const port = await freePort();
  // initdb refuses to run as root: use the postgres account then.
  const asPg = (cmd: string, args: string[]) => (process.getuid?.() === 0 ? execFileSync('su', ['postgres', '-c', [cmd, ...args].map((a) => `'${a}'`).join(' ')]) : execFileSync(cmd, args));
  asPg(join(bin, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres']);
  asPg(join(bin, 'pg_ctl'), ['-D', data, '-w', '-l', join(dir, 'log'), '-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1`, 'start']);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop() {
      if (process.getuid?.() === 0) spawnSync('su', ['postgres', '-c', `'${join(bin, 'pg_ctl')}' -D '${data}' -m immediate stop`]);
      else spawnSync(join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', 'stop']);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
