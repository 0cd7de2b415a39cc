// First: it sets what uWS reads when it loads.
import './http/header-limit.js';
import { ConfigError, loadConfig } from './config.js';
import { createLogger, flushed } from './logger.js';
import { startServer } from './server.js';
import { announceFirstRun } from './manage/first-run.js';

let config;
try {
  config = loadConfig(process.env);
} catch (err) {
  if (!(err instanceof ConfigError)) throw err;
  process.stderr.write(`${err.message}\n`);
  process.exit(1);
}
const log = createLogger(config.logLevel);

/** A fatal error is written out before the process exits. */
async function exitFatal(err: unknown, message: string): Promise<never> {
  log.fatal({ err }, message);
  await flushed(log);
  process.exit(1);
}
process.on('uncaughtException', (err) => void exitFatal(err, 'uncaught exception'));

const server = await startServer(config, log).catch((err: unknown) => exitFatal(err, 'start failed'));
await announceFirstRun(server, config);

let stopping = false;
const shutdown = (signal: string) => {
  if (stopping) return;
  stopping = true;
  log.info({ signal }, 'shutting down');
  server.stop().then(
    () => log.flush(() => process.exit(0)),
    (err: unknown) => void exitFatal(err, 'shutdown failed'),
  );
};
process.on('SIGINT', () => shutdown('SIGINT'));
process.on('SIGTERM', () => shutdown('SIGTERM'));
process.on('unhandledRejection', (err) => log.error({ err }, 'unhandled rejection'));
