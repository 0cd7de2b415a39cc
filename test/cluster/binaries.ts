import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/** A program of a Debian package: where the package puts it, else wherever PATH finds it. */
export function debianBinary(debianPath: string): string {
  if (existsSync(debianPath)) return debianPath;
  const name = debianPath.split('/').pop() as string;
  try {
    return execFileSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).trim();
  } catch {
    throw new Error(`${name} not found (${debianPath} or PATH): install the Debian package (.ci/run does)`);
  }
}

/** Run as root (CI, containers), Postgres and its tools must run as the postgres account. */
export function asPostgresUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }));
  const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }));
  return { uid, gid };
}
