import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The code a worker thread evaluates (`new Worker(code, { eval: true })`) to run the module `name`
 * that sits beside the module `from` (its import.meta.url), with that module's extension: .ts from
 * source, .js built. Run from source, the thread registers tsx itself: neither the main thread's
 * `--import tsx` nor a test runner's transform reaches workers.
 */
export function threadBoot(name: string, from: string): string {
  const entry = new URL(`./${name}${extname(fileURLToPath(from))}`, from);
  return entry.pathname.endsWith('.ts')
    ? `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry.href)}); })`
    : `import(${JSON.stringify(entry.href)})`;
}
