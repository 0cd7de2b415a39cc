import type { Logger } from '../logger.js';
import type { ConnectionLimitConfig } from './config.js';
import type { ConnectionCaps } from './connections.js';
import { descriptorReserve, openFileLimit } from './open-file-limit.js';

/** Where the system says nothing of a descriptor limit and WS_MAX_CONNECTIONS is not set. */
const WITHOUT_KNOWN_LIMIT = 100_000;

/**
 * The caps for this process: WS_MAX_CONNECTIONS, never above the file-descriptor limit less a
 * reserve for HTTP requests, the database and Redis (the limit read at start); said in the log.
 */
export function connectionCaps(config: ConnectionLimitConfig, log: Logger, fileLimit = openFileLimit()): ConnectionCaps {
  const reserve = fileLimit === undefined ? undefined : descriptorReserve(fileLimit);
  const ceiling = fileLimit === undefined || reserve === undefined ? undefined : Math.max(1, fileLimit - reserve);
  let total = config.max ?? ceiling ?? WITHOUT_KNOWN_LIMIT;
  if (ceiling !== undefined && total > ceiling) {
    log.warn({ asked: total, fileDescriptorLimit: fileLimit, reserve }, 'WS_MAX_CONNECTIONS is above what the file-descriptor limit allows; lowered');
    total = ceiling;
  }
  const caps = { total, perAddress: Math.min(config.perAddress, total) };
  log.info({ fileDescriptorLimit: fileLimit ?? 'unknown', reserve, maxConnections: caps.total, maxConnectionsPerAddress: caps.perAddress }, 'long-lived connections admitted');
  return caps;
}
