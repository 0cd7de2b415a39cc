/**
 * `npm run app:create -- --name NAME`: creates an application and an API token in the configured
 * database and prints them. The secrets go to standard output (not the logger, which writes
 * to standard error here so the output stays machine-readable).
 */
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { AppDirectory } from '../apps/directory.js';
import { ConfigError, databaseSettings, loadConfig } from '../config.js';
import { openDatabase, type Database } from '../db/client.js';
import { MemoryBus } from '../realtime/memory-bus.js';
import { fail } from './outcome.js';

const USAGE = 'Usage: npm run app:create -- --name NAME [--userreportslimit N] [--organizationid ORG]\n';

function parse(argv: string[]) {
  try {
    return parseArgs({
      args: argv,
      options: {
        name: { type: 'string' },
        userreportslimit: { type: 'string' },
        organizationid: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (err) {
    return fail(`${(err as Error).message}\n${USAGE}`, 2);
  }
}

async function main(): Promise<void> {
  const args = parse(process.argv.slice(2));
  if (args.help === true) {
    process.stdout.write(USAGE);
    return;
  }
  const name = args.name?.trim() ?? '';
  if (name === '') fail(`--name is required.\n${USAGE}`, 2);
  const limitText = args.userreportslimit ?? '3';
  if (!/^\d+$/.test(limitText)) fail(`--userreportslimit must be a whole number.\n${USAGE}`, 2);
  const organizationId = args.organizationid?.trim() || undefined;

  let config;
  try {
    config = loadConfig(process.env);
  } catch (err) {
    if (err instanceof ConfigError) fail(err.message, 1);
    throw err;
  }
  const log = pino({ level: config.logLevel === 'info' ? 'warn' : config.logLevel, base: undefined }, pino.destination(2));

  let database: Database;
  try {
    // A tool run by hand holds no reserve of its own, and leaves the server's as it is.
    database = await openDatabase({ ...databaseSettings(config), storageReserve: 0, log });
  } catch (err) {
    const hint = config.databaseUrl === undefined ? `\nThe embedded database in ${config.dataDir} can be opened by one process only: stop the server using this DATA_DIR and try again.` : '';
    return fail(`Cannot open the database: ${(err as Error).message}${hint}`, 1);
  }
  try {
    const apps = new AppDirectory(database.db, new MemoryBus(log));
    const app = await apps.create({ name, userReportsLimit: Number(limitText), useOrganizationUserDatabase: organizationId !== undefined, organizationId });
    const { token } = await apps.createToken(app.id, { name: 'default', scope: 'server', permissions: [] });
    process.stdout.write(`appid: ${app.id}\ntoken: ${token}\njwtsecret: ${app.jwtSecret}\nwebhooksecret: ${app.webhookSecret}\n`);
  } finally {
    await database.close();
  }
}

await main();
