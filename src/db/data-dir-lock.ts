import { statSync, unlinkSync } from 'node:fs';
import { connect, createServer, type Server } from 'node:net';
import { join } from 'node:path';

/**
 * PGlite is single-process and takes no lock of its own: two processes on one data directory
 * corrupt it. The lock is a listening socket, which the kernel closes the moment its process
 * dies (a kill -9 included, before the process is even reaped), so a stale lock never refuses
 * a start and a pid reused by another process means nothing. On Linux it is an abstract socket
 * named after the directory's device and inode (the same directory under any path), which
 * leaves nothing behind; elsewhere a socket file in the directory, taken over when nothing
 * answers on it. Resolves to the release; rejects when a live process holds the directory.
 */
export async function lockDataDir(dataDir: string): Promise<() => void> {
  if (process.platform === 'linux') {
    const { dev, ino } = statSync(dataDir);
    const server = await listen(`\0engage-embedded-${dev}-${ino}`).catch((err: unknown) => {
      throw inUse(dataDir, err);
    });
    return () => server.close();
  }
  const file = join(dataDir, 'engage.lock');
  const server = await listen(file).catch(async (err: unknown) => {
    if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE' || (await answers(file))) throw inUse(dataDir, err);
    unlinkSync(file);
    return listen(file);
  });
  return () => server.close();
}

function listen(path: string): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer((socket) => socket.destroy());
    server.once('error', reject);
    server.listen(path, () => {
      server.off('error', reject);
      server.unref();
      resolve(server);
    });
  });
}

function answers(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(path, () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

function inUse(dataDir: string, err: unknown): Error {
  if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') return err as Error;
  return new Error(`The embedded database in ${dataDir} is in use by another running server.`);
}
