// `npm start` runs the built server (dist/). This builds it first when there is no build yet or a
// source is newer than the last one; compiler output goes to standard error, leaving standard
// output to the server's JSON log lines.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = new URL('..', import.meta.url).pathname;
/** Written after a successful build: a failed one leaves no stamp and is tried again. */
const STAMP = join(ROOT, 'dist/.built');
const SOURCES = ['src', 'package.json', 'tsconfig.json', 'tsconfig.build.json'].map((path) => join(ROOT, path));

/** The newest modification time under `path`. */
function newest(path) {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(stat.mtimeMs, ...readdirSync(path).map((name) => newest(join(path, name))));
}

if (!existsSync(STAMP) || Math.max(...SOURCES.map(newest)) > statSync(STAMP).mtimeMs) {
  process.stderr.write('Building the server into dist/ (npm run build)\n');
  // A clean build: files of deleted sources do not linger.
  rmSync(join(ROOT, 'dist'), { recursive: true, force: true });
  try {
    execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: ['ignore', 2, 2] });
  } catch {
    process.stderr.write('The build failed (see above).\n');
    process.exit(1);
  }
  writeFileSync(STAMP, `${new Date().toISOString()}\n`);
}
