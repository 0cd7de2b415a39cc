import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { FROM_SOURCE, spawnServer } from './spawn.js';

/**
 * The embedded database's template (data-template.ts) is kept between runs in
 * node_modules/.cache, named by a hash of the sources and the lock file: any change to what a
 * first start does makes a new one.
 */
const ROOT = new URL('../..', import.meta.url).pathname;
const CACHE = join(ROOT, 'node_modules/.cache/engage-test-data');

/**
 * The template for this checkout's sources: the kept one, or made now by a first start (from the
 * sources through tsx, so that it need not wait for a build running meanwhile).
 */
export async function dataTemplate(): Promise<string> {
  const dir = join(CACHE, sourcesHash());
  if (existsSync(dir)) return dir;
  mkdirSync(CACHE, { recursive: true });
  const making = mkdtempSync(join(CACHE, 'making-'));
  await (await spawnServer({ DATA_DIR: making }, FROM_SOURCE)).stop();
  for (const old of readdirSync(CACHE)) if (join(CACHE, old) !== making) rmSync(join(CACHE, old), { recursive: true, force: true });
  renameSync(making, dir);
  return dir;
}

/** Every source file and the lock file, hashed. */
function sourcesHash(): string {
  const hash = createHash('sha256');
  const add = (path: string) => {
    for (const entry of readdirSync(path, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const full = join(path, entry.name);
      if (entry.isDirectory()) add(full);
      else hash.update(full.slice(ROOT.length)).update(readFileSync(full));
    }
  };
  add(join(ROOT, 'src'));
  hash.update(readFileSync(join(ROOT, 'package-lock.json')));
  return hash.digest('hex').slice(0, 16);
}
