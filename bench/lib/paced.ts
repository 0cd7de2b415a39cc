import { connect, type Socket } from 'node:net';
import type { LoadOptions, LoadResult } from './autocannon.js';

/**
 * An open-loop load at a fixed rate, for latency: request i is due at start + i / rate, spread
 * evenly over each second, and its latency counts from when it was due (so time spent waiting
 * for a free connection counts too). autocannon's `overallRate` instead lets every connection
 * send its share of a second back to back when the second begins, which measures bursts at
 * full load, and weights slow responses by their own latency when it corrects for omission.
 *
 * HTTP/1.1 keep-alive over raw sockets with prebuilt requests, so the generator stays cheap
 * next to the server on a small machine. Responses must carry content-length (ours do).
 */
export async function paced(options: LoadOptions & { overallRate: number }): Promise<LoadResult> {
  const url = new URL(options.url);
  const prebuilt = (body: string) => {
    const headers: Record<string, string> = { host: url.host, 'content-type': 'application/json', ...options.headers };
    if (body !== '') headers['content-length'] = String(Buffer.byteLength(body));
    const head = `${options.method ?? 'GET'} ${url.pathname}${url.search} HTTP/1.1\r\n${Object.entries(headers)
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('')}\r\n`;
    return Buffer.from(head + body);
  };
  // One prebuilt request per body, sent in turn.
  const requests = (options.bodies ?? [options.body ?? '']).map(prebuilt);
  const rate = options.overallRate;
  const durationMs = (options.durationSeconds ?? 10) * 1000;
  const latencies: number[] = [];
  let non2xx = 0;
  let errors = 0;
  const idle: Conn[] = [];
  const start = performance.now();
  let sent = 0;

  interface Conn {
    socket: Socket;
    due: number;
    buffered: Buffer;
  }
  const open = (): Promise<Conn> =>
    new Promise((resolve, reject) => {
      const socket = connect(Number(url.port), url.hostname, () => resolve(conn));
      const conn: Conn = { socket, due: 0, buffered: Buffer.alloc(0) };
      socket.setNoDelay(true);
      socket.once('error', reject);
      socket.on('error', () => errors++);
      socket.on('data', (chunk: Buffer) => {
        conn.buffered = conn.buffered.length === 0 ? chunk : Buffer.concat([conn.buffered, chunk]);
        const end = conn.buffered.indexOf('\r\n\r\n');
        if (end < 0) return;
        const header = conn.buffered.subarray(0, end).toString('latin1');
        const length = Number(/content-length: *(\d+)/i.exec(header)?.[1] ?? 0);
        if (conn.buffered.length < end + 4 + length) return;
        conn.buffered = conn.buffered.subarray(end + 4 + length);
        const status = Number(header.slice(9, 12));
        if (status < 200 || status > 299) non2xx++;
        latencies.push(performance.now() - conn.due);
        idle.push(conn);
        dispatch();
      });
    });

  const dispatch = () => {
    const now = performance.now();
    if (now - start >= durationMs) return;
    const due = Math.floor(((now - start) * rate) / 1000);
    while (sent < due && idle.length > 0) {
      const conn = idle.pop() as Conn;
      conn.due = start + (sent * 1000) / rate;
      conn.socket.write(requests[sent % requests.length] as Buffer);
      sent++;
    }
  };

  const conns = await Promise.all(Array.from({ length: options.connections ?? 64 }, open));
  idle.push(...conns);
  const ticker = setInterval(dispatch, 1);
  await new Promise((resolve) => setTimeout(resolve, durationMs));
  clearInterval(ticker);
  // Let the requests in flight finish.
  const deadline = performance.now() + 5000;
  while (idle.length < conns.length && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
  for (const c of conns) c.socket.destroy();
  latencies.sort((a, b) => a - b);
  const at = (q: number) => Math.round((latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0) * 10) / 10;
  return { answered: latencies.length, requestsPerSec: Math.round((latencies.length * 1000) / durationMs), p50: at(0.5), p90: at(0.9), p99: at(0.99), non2xx, errors };
}
