// Builds engage-client into client/dist: one minified ESM file and its type declarations, and
// writes the build's pinned path and integrity hash into client/README.md (what the server serves).
// Run by `npm run build:client`, by the repository's `npm install` (prepare) and by `npm pack` here.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';
import { build } from 'esbuild';

const here = new URL('.', import.meta.url).pathname;
rmSync(`${here}dist`, { recursive: true, force: true });
await build({
  entryPoints: [`${here}src/index.ts`],
  outfile: `${here}dist/index.js`,
  bundle: true,
  minify: true,
  format: 'esm',
  target: 'es2020',
  sourcemap: false,
  logLevel: 'warning',
});
const tsc = join(dirname(createRequire(import.meta.url).resolve('typescript/package.json')), 'bin/tsc');
execFileSync(process.execPath, [tsc, '-p', `${here}tsconfig.json`], { stdio: 'inherit' });

// As src/realtime/client-script.ts names them.
const body = readFileSync(`${here}dist/index.js`);
const pinned = `/client/engage-client-${createHash('sha256').update(body).digest('base64url').slice(0, 16)}.js`;
const integrity = `sha384-${createHash('sha384').update(body).digest('base64')}`;
const readme = readFileSync(`${here}README.md`, 'utf8');
const block = /(<!-- build:start[^>]*-->\n)[\s\S]*?(<!-- build:end -->)/;
const table = `| | |\n|---|---|\n| pinned path | \`${pinned}\` |\n| integrity | \`${integrity}\` |\n`;
const updated = readme.replace(block, (_, start, end) => `${start}${table}${end}`);
if (updated !== readme) writeFileSync(`${here}README.md`, updated);
console.log(`client built: client/dist/index.js, index.d.ts (${pinned}, ${integrity})`);
