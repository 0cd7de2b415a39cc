// Preloaded into the server the backup bench starts (never into production): records every
// stall of the event loop longer than STALL_MS (a 1 ms timer firing late: the thread was busy),
// with the wall-clock time it ended, and writes them as JSON to ENGAGE_STALLS_FILE on SIGUSR2.
import { writeFileSync } from 'node:fs';

const STALL_MS = 20;
const stalls = [];
let last = performance.now();
setInterval(() => {
  const now = performance.now();
  if (now - last > STALL_MS) stalls.push({ endedAt: Date.now(), ms: Math.round(now - last) });
  last = now;
}, 1).unref();
process.on('SIGUSR2', () => writeFileSync(process.env.ENGAGE_STALLS_FILE, JSON.stringify(stalls)));
