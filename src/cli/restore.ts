/**
 * `npm run restore -- FILE [--replace]`: a backup (POST /api/v3/manage/backups, BACKUP_DIR) into
 * the database this configuration names: DATABASE_URL, or else the embedded DATA_DIR. Refused
 * when the target holds data, unless --replace.
 */
import { parseArgs } from 'node:util';
import { restoreFile } from '../backup/commands.js';
import { describePlace, placeOf } from '../backup/places.js';
import { ConfigError, loadConfig } from '../config.js';
import { fail, failed, report } from './outcome.js';

const USAGE = 'Usage: npm run restore -- FILE [--replace]   (into DATABASE_URL, or else the embedded DATA_DIR)\n';

let parsed;
try {
  parsed = parseArgs({ args: process.argv.slice(2), options: { replace: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } }, allowPositionals: true, strict: true });
} catch (err) {
  fail(`${(err as Error).message}\n${USAGE}`, 2);
}
if (parsed.values.help === true) {
  process.stdout.write(USAGE);
  process.exit(0);
}
const [file, ...extra] = parsed.positionals;
if (file === undefined || extra.length > 0) fail(USAGE, 2);
let config;
try {
  config = loadConfig(process.env);
} catch (err) {
  if (err instanceof ConfigError) fail(err.message, 2);
  throw err;
}
const target = placeOf(config.databaseUrl ?? config.dataDir);
try {
  report(await restoreFile(file, target, parsed.values.replace === true), describePlace(target));
} catch (err) {
  failed(err);
}
