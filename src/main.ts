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

/**
 * SIGTERM drains first (SHUTDOWN_DRAIN_SECONDS: /readyz 503, every answer closes its connection)
 * so a load balancer steers traffic away, then stops; a second signal ends the drain at once, a
 * third exits at once, and SHUTDOWN_TIMEOUT_SECONDS bounds the whole. SIGINT (Ctrl-C in a terminal)
 * has no load balancer to wait for: it stops without the drain.
 */
let signals = 0;
let endDrain = () => {};
const shutdown = (signal: NodeJS.Signals) => {
  signals++;
  if (signals === 2) {
    log.warn({ signal }, 'second signal: the drain ends now');
    return endDrain();
  }
  if (signals > 2) return void exitFatal(new Error(`${signal} during the stop`), 'shutdown cut short');
  const drainSeconds = signal === 'SIGTERM' ? config.shutdownDrainSeconds : 0;
  log.info({ signal, drainSeconds }, 'shutting down: draining');
  server.beginDrain();
  setTimeout(() => void exitFatal(new Error(`not stopped within SHUTDOWN_TIMEOUT_SECONDS=${config.shutdownTimeoutSeconds}`), 'shutdown timed out'), config.shutdownTimeoutSeconds * 1000).unref();
  new Promise<void>((resolve) => {
    endDrain = resolve;
    setTimeout(resolve, drainSeconds * 1000);
  })
    .then(() => {
      log.info('drained: stopping');
      return server.stop();
    })
    .then(
      () => log.flush(() => process.exit(0)),
      (err: unknown) => void exitFatal(err, 'shutdown failed'),
    );
};
process.on('SIGINT', () => shutdown('SIGINT'));
process.on('SIGTERM', () => shutdown('SIGTERM'));
process.on('unhandledRejection', (err) => log.error({ err }, 'unhandled rejection'));
