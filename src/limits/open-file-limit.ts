import { readFileSync } from 'node:fs';

/**
 * This process's soft limit on open file descriptors (RLIMIT_NOFILE), from /proc/self/limits;
 * undefined where that file does not exist (not Linux) or says unlimited.
 */
export function openFileLimit(limitsFile = '/proc/self/limits'): number | undefined {
  let text: string;
  try {
    text = readFileSync(limitsFile, 'utf8');
  } catch {
    return undefined;
  }
  const soft = /^Max open files\s+(\S+)/m.exec(text)?.[1];
  return soft === undefined || soft === 'unlimited' ? undefined : Number(soft);
}

/** Connections the kernel queues for uWebSockets.js's listening socket (its listen backlog). */
const LISTEN_BACKLOG = 512;

/**
 * Descriptors kept back from long-lived connections: a burst of connections is accepted (up to the
 * listen backlog at a time) before their requests are read and refused, and HTTP requests, the
 * database, Redis, files and logs need theirs meanwhile. At most half the limit.
 */
export function descriptorReserve(limit: number): number {
  return Math.min(Math.ceil(limit / 2), Math.max(2 * LISTEN_BACKLOG, Math.ceil(limit / 8)));
}
