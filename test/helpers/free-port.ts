import { closeSync, mkdirSync, openSync, statSync, utimesSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Ports handed out lately, one file each, shared by every test process on the machine: a port the kernel
 * found free is free only until someone binds it, so two files starting servers at once could be given the
 * same one; the second to claim it here asks the kernel again.
 */
const CLAIMS = join(tmpdir(), 'engage-test-ports');
/** How long a claim holds: longer than any server a test starts lives. */
const CLAIM_MS = 60 * 60_000;

/** A loopback port nobody listens on and no other test process was handed in the last hour. */
export async function freePort(): Promise<number> {
  mkdirSync(CLAIMS, { recursive: true });
  for (;;) {
    const port = await portTheKernelFinds();
    if (claim(port)) return port;
  }
}

function portTheKernelFinds(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      srv.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}

function claim(port: number): boolean {
  const file = join(CLAIMS, String(port));
  try {
    closeSync(openSync(file, 'wx'));
    return true;
  } catch {
    // Claimed before: taken again only once that claim is old (two processes may then both take it, as without claims).
    if (Date.now() - statSync(file).mtimeMs < CLAIM_MS) return false;
    utimesSync(file, new Date(), new Date());
    return true;
  }
}
