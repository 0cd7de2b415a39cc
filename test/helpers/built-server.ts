import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const ROOT = new URL('../..', import.meta.url).pathname;

/**
 * Builds the server into dist/ when a source is newer than the last build (what `npm start`
 * does), once before a suite's files start theirs: test servers run the build, as production
 * does, which spares each of them loading the TypeScript sources through tsx (about a second of CPU).
 */
export async function buildServerIfStale(): Promise<void> {
  const { stderr } = await promisify(execFile)(process.execPath, ['scripts/build-if-stale.mjs'], { cwd: ROOT });
  if (stderr !== '') process.stderr.write(stderr);
}

/** A vitest global setup for suites that need nothing else before their files (the cluster suite). */
export async function setup(): Promise<void> {
  await buildServerIfStale();
}
