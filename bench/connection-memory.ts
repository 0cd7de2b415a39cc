/**
 * The JavaScript heap one socket's Connection object holds (subscribed to one topic), beside the
 * same in another checkout (BENCH_ROOT): what a change adds to every idle socket, read exactly
 * (bench:ws's bytes per idle socket, from the process's RSS, moves by kilobytes from run to run).
 * The socket's uWS side is not counted: a change that subscribes a socket to more uWS topics or
 * keeps state in uWS shows in bench:ws.
 *
 *   npm run bench:connection-memory
 *   BENCH_ROOT=/path/to/a/checkout npm run bench:connection-memory
 */
import { resolve } from 'node:path';

type Make = (...args: unknown[]) => { topics: Map<string, number> | Set<string> };
const N = 100_000;
const TOPIC = 'room:01a224bb-9264-792a-bd51-dcf1336a4afa';
const gc =
  (globalThis as { gc?: () => void }).gc ??
  ((): never => {
    throw new Error('run with node --expose-gc');
  });

/** Heap bytes per Connection, from `root`'s src/realtime/connection.ts, each with one topic. */
async function perConnection(root: string): Promise<number> {
  const { newConnection } = (await import(resolve(root, 'src/realtime/connection.ts'))) as { newConnection: Make };
  const release = () => {};
  // Checkouts before compact frames take no encoding argument; later ones take it before `release`.
  const make = () =>
    newConnection.length >= 7
      ? newConnection('app', '127.0.0.1', undefined, undefined, '', { compact: true, deflate: true, dictionary: '' }, release)
      : newConnection('app', '127.0.0.1', undefined, undefined, '', release);
  gc();
  const before = process.memoryUsage().heapUsed;
  const kept = Array.from({ length: N }, (_, i) => {
    const conn = make();
    if (conn.topics instanceof Map) conn.topics.set(TOPIC, i);
    else conn.topics.add(TOPIC);
    return conn;
  });
  gc();
  const bytes = (process.memoryUsage().heapUsed - before) / N;
  return kept.length > 0 ? Math.round(bytes) : 0;
}

const here = await perConnection('.');
process.stdout.write(`this checkout: ${here} bytes of heap per socket's Connection (one topic)\n`);
const root = process.env['BENCH_ROOT'];
if (root !== undefined) {
  const before = await perConnection(root);
  process.stdout.write(`${root}: ${before} bytes; this checkout holds ${here - before} bytes more per socket\n`);
}
