// Builds engage-client into client/dist: one minified ESM file and its type declarations.
// Run by `npm run build:client` and by the repository's `npm install` (prepare).
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
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
console.log('client built: client/dist/index.js, index.d.ts');
