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

/** Descriptors kept back from long-lived connections: HTTP requests, the database, Redis, files and logs. */
export function descriptorReserve(limit: number): number {
  return Math.max(256, Math.ceil(limit / 8));
}
