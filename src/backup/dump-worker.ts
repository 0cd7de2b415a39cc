/**
 * A backup's dump, on a thread of its own (see Backups): it reads a database whole and hands it
 * over gzipped, a piece at a time, each once the one before was taken (the server's memory holds
 * at most one). The thread runs at a lower CPU priority than the server's (Linux sets it per
 * thread), and gzips on itself rather than on libuv's threads, which the server's own work shares.
 */
import { setPriority } from 'node:os';
import { Writable } from 'node:stream';
import { parentPort, workerData } from 'node:worker_threads';
import { gzipSync } from 'node:zlib';
import { dump } from './dump.js';
import { openPlace, type Place } from './places.js';

/** What the thread is told, and what it says. */
export type DumpSource = { dir: string } | { url: string };
export type DumpMessage = { piece: ArrayBuffer } | { done: true } | { failed: string };
/** The parent takes a piece: the next may come. */
export const TAKEN = 'taken';

/** Text gathered before it is gzipped and handed over: each piece is a gzip member of its own (a file of several members is one gzip file). */
const PIECE_BYTES = 1024 * 1024;
/** gzip's fastest level: the dump should cost the machine little (docs/backups.md says what it costs in bytes). */
const GZIP_LEVEL = 1;
const DUMP_NICENESS = 19;

const port = parentPort;
if (port !== null) {
  if (process.platform === 'linux') setPriority(DUMP_NICENESS);
  const source = workerData as DumpSource;
  const place: Place = 'dir' in source ? { kind: 'embedded', dir: source.dir } : { kind: 'postgres', url: source.url };
  const post = (message: DumpMessage, transfer: ArrayBuffer[] = []) => port.postMessage(message, transfer);
  let taken: () => void = () => {};
  port.on('message', (message) => message === TAKEN && taken());
  let gathered: Buffer[] = [];
  let bytes = 0;
  const handOver = async () => {
    if (bytes === 0) return;
    const piece = gzipSync(Buffer.concat(gathered), { level: GZIP_LEVEL });
    gathered = [];
    bytes = 0;
    const buffer = piece.buffer.slice(piece.byteOffset, piece.byteOffset + piece.length) as ArrayBuffer;
    const next = new Promise<void>((resolve) => (taken = resolve));
    post({ piece: buffer }, [buffer]);
    await next;
  };
  const out = new Writable({
    write(chunk: Buffer, _encoding, done) {
      gathered.push(chunk);
      bytes += chunk.length;
      if (bytes < PIECE_BYTES) return done();
      handOver().then(() => done(), done);
    },
    final(done) {
      handOver().then(() => done(), done);
    },
  });
  try {
    const session = await openPlace(place);
    try {
      await dump(session, out);
      await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
    } finally {
      await session.close();
    }
    post({ done: true });
  } catch (err) {
    post({ failed: (err as Error).message });
  }
}
