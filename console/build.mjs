// Builds the console into console/dist: one fingerprinted script and stylesheet, and an
// index.html naming them. Run by `npm install` (the prepare script) and `npm run build:console`.
import { build } from 'esbuild';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';

const here = new URL('.', import.meta.url).pathname;
const out = `${here}dist`;
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });

const result = await build({
  entryPoints: { app: `${here}src/main.tsx`, style: `${here}src/style.css` },
  outdir: out,
  entryNames: '[name]-[hash]',
  bundle: true,
  minify: true,
  format: 'esm',
  target: 'es2022',
  jsx: 'automatic',
  jsxImportSource: 'preact',
  metafile: true,
  logLevel: 'warning',
});

const built = Object.keys(result.metafile.outputs).map((file) => basename(file));
const script = built.find((f) => f.startsWith('app-') && f.endsWith('.js'));
const style = built.find((f) => f.startsWith('style-') && f.endsWith('.css'));
const html = readFileSync(`${here}src/index.html`, 'utf8').replace('{{script}}', `/console/${script}`).replace('{{style}}', `/console/${style}`);
writeFileSync(`${out}/index.html`, html);
console.log(`console built: ${built.join(', ')}, index.html`);
