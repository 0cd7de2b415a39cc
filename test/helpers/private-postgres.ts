import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from './free-port.js';

export interface Postgres {
  url: string;
  stop(): void;
}

/** The newest local Postgres binaries (Debian's layout). */
function postgresBin(): string {
  const root = '/usr/lib/postgresql';
  const version = existsSync(root) ? readdirSync(root).sort().at(-1) : undefined;
  if (version === undefined) throw new Error('This test needs local Postgres binaries under /usr/lib/postgresql (or DATABASE_URL where it takes one).');
  return join(root, version, 'bin');
}

/** Runs a Postgres program: as the postgres account when this process is root (initdb and postgres refuse to run as root). */
function asPostgres(command: string, args: string[]): void {
  if (process.getuid?.() === 0) execFileSync('su', ['postgres', '-c', [command, ...args].map((a) => `'${a}'`).join(' ')]);
  else execFileSync(command, args);
}

export interface PrivatePostgresOptions {
  /** `name=value` settings on its command line. */
  settings?: string[];
  /** A directory (made writable for the postgres account) for its WAL, apart from its data: a volume of its own, as production setups often give it. */
  walDir?: string;
}

/**
 * A throwaway Postgres cluster of the local binaries, its data and log in `dir` (made writable for
 * the postgres account), on a free loopback port. stop() stops it at once and removes what it
 * made in `dir` (and in the WAL directory).
 */
export async function privatePostgres(dir: string, { settings = [], walDir }: PrivatePostgresOptions = {}): Promise<Postgres> {
  const bin = postgresBin();
  chmodSync(dir, 0o777);
  if (walDir !== undefined) chmodSync(walDir, 0o777);
  const data = join(dir, 'data');
  const port = await freePort();
  const wal = walDir === undefined ? [] : [`--waldir=${join(walDir, 'pg_wal')}`];
  asPostgres(join(bin, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres', ...wal]);
  const options = [`-p ${port} -k ${dir} -c listen_addresses=127.0.0.1`, ...settings.map((s) => `-c ${s}`)].join(' ');
  asPostgres(join(bin, 'pg_ctl'), ['-D', data, '-w', '-l', join(dir, 'log'), '-o', options, 'start']);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop() {
      if (process.getuid?.() === 0) spawnSync('su', ['postgres', '-c', `'${join(bin, 'pg_ctl')}' -D '${data}' -m immediate stop`]);
      else spawnSync(join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', 'stop']);
      for (const entry of readdirSync(dir)) rmSync(join(dir, entry), { recursive: true, force: true });
      if (walDir !== undefined) rmSync(join(walDir, 'pg_wal'), { recursive: true, force: true });
    },
  };
}
