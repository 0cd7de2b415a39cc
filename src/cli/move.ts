/**
 * `npm run move -- --to TARGET [--from SOURCE] [--replace]`: everything in one database into
 * another, empty one. TARGET and SOURCE are each a PostgreSQL URL or an embedded data directory;
 * SOURCE may also be a backup file. SOURCE defaults to DATA_DIR (its server stopped).
 */
import { statSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { move, restoreFile } from '../backup/commands.js';
import { describePlace, placeOf } from '../backup/places.js';
import { ConfigError, loadConfig } from '../config.js';
import { fail, failed, report } from './outcome.js';

const USAGE = 'Usage: npm run move -- --to postgres://… | DIR [--from DIR | postgres://… | BACKUP_FILE] [--replace]   (--from defaults to DATA_DIR)\n';

let parsed;
try {
  parsed = parseArgs({
    args: process.argv.slice(2),
    options: { to: { type: 'string' }, from: { type: 'string' }, replace: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
    strict: true,
  });
} catch (err) {
  fail(`${(err as Error).message}\n${USAGE}`, 2);
}
const { values } = parsed;
if (values.help === true) {
  process.stdout.write(USAGE);
  process.exit(0);
}
if (values.to === undefined) fail(`--to is required.\n${USAGE}`, 2);
let from = values.from;
if (from === undefined) {
  try {
    from = loadConfig(process.env).dataDir;
  } catch (err) {
    if (err instanceof ConfigError) fail(err.message, 2);
    throw err;
  }
}
const target = placeOf(values.to);
const replace = values.replace === true;
const isFile = (path: string) => statSync(path, { throwIfNoEntry: false })?.isFile() === true;
try {
  report(isFile(from) ? await restoreFile(from, target, replace) : await move(placeOf(from), target, replace), describePlace(target));
} catch (err) {
  failed(err);
}
