import { cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The embedded database a first start creates (initdb and every migration: about 10 s of CPU on
 * a 2-core machine) is made once (kept-template.ts) and copied (a fifth of a second) into each
 * server's own data directory, so that the suite's many servers of their own start in seconds.
 * The variable reaches the test workers, which are started after the global setup.
 */
const DATA_TEMPLATE_VARIABLE = 'ENGAGE_TEST_DATA_TEMPLATE';

/** Remembers `dir`, the data directory of a server that started and stopped cleanly, as the template. */
export function useDataTemplate(dir: string): void {
  process.env[DATA_TEMPLATE_VARIABLE] = dir;
}

/**
 * A new data directory for a server on the embedded default (in `under`: a disk of the test's
 * own), holding a copy of the template when there is one (a server given an empty directory
 * instead makes its database: a first start).
 */
export function freshDataDir(under = tmpdir()): string {
  const dir = mkdtempSync(join(under, 'engage-test-'));
  const template = process.env[DATA_TEMPLATE_VARIABLE];
  if (template !== undefined) cpSync(template, dir, { recursive: true });
  return dir;
}
