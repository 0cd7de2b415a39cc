// Frames are arbitrary JSON; tests read them loosely and assert on the values, so `any` is the honest type here.
/* eslint-disable @typescript-eslint/no-explicit-any */
import { createConnection } from 'node:net';
import { inflateRawSync } from 'node:zlib';
import WebSocket from 'ws';
import { CompactStream } from '../../client/src/compact-stream.js';

export type Frame = Record<string, any>;

/**
 * The frame encoding of the sockets tests open: plain unless TEST_WS_ENCODING=compact, which runs
 * the same tests over compact frames (docs/realtime.md), read back by engage-client's own decoder.
 */
export const COMPACT_QUERY = 'encoding=compact&compress=deflate-raw';
const compactByDefault = process.env['TEST_WS_ENCODING'] === 'compact';

/** What came over the wire, before a compact socket's frames were read back. */
export interface Received {
  text: string;
  binary: boolean;
  /** Payload bytes on the wire. */
  bytes: number;
}

/** A test WebSocket client that records every frame and the close code. */
export class WsClient {
  /** The frames, as plain ones (a compact socket's are read back into them). */
  readonly frames: Frame[] = [];
  /** Every message as received. */
  readonly received: Received[] = [];
  private readonly compact: CompactStream | undefined;
  readonly closed: Promise<{ code: number; reason: string }>;
  /** How the socket closed, once it has: said when a wait fails on a closed socket. */
  private closedWith = '';
  private waiters: (() => void)[] = [];

  constructor(
    readonly socket: WebSocket,
    compact = socket.url.includes('encoding=compact'),
  ) {
    this.compact = compact ? new CompactStream() : undefined;
    socket.on('message', (data: Buffer, binary: boolean) => {
      const text = binary ? inflateRawSync(data).toString() : data.toString();
      this.received.push({ text, binary, bytes: data.length });
      const parsed: unknown = JSON.parse(text);
      this.frames.push(...((this.compact?.frames(parsed) ?? [parsed]) as Frame[]));
      for (const wake of this.waiters.splice(0)) wake();
    });
    // A frame the client cannot read closes the socket with 1006 too: the error says which.
    let error = '';
    socket.on('error', (err: Error) => (error = `; client error: ${err.message}`));
    this.closed = new Promise((resolve) => socket.on('close', (code: number, reason: Buffer) => resolve({ code, reason: reason.toString() })));
    void this.closed.then(({ code, reason }) => {
      this.closedWith = `; closed with ${code} ${reason}${error}`;
      for (const wake of this.waiters.splice(0)) wake();
    });
  }

  send(frame: unknown): void {
    this.socket.send(typeof frame === 'string' ? frame : JSON.stringify(frame));
  }

  /** The first recorded frame (from `from` on) that matches, waiting up to `ms`. */
  async next(match: (f: Frame) => boolean, ms = 5000, from = 0): Promise<Frame> {
    const deadline = Date.now() + ms;
    for (;;) {
      const found = this.frames.slice(from).find(match);
      if (found !== undefined) return found;
      const left = deadline - Date.now();
      if (left <= 0 || this.socket.readyState === WebSocket.CLOSED) throw new Error(`no matching frame within ${ms} ms; got ${JSON.stringify(this.frames)}${this.closedWith}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Waits until `count` frames match, then returns them. */
  async collect(match: (f: Frame) => boolean, count: number, ms = 5000): Promise<Frame[]> {
    const deadline = Date.now() + ms;
    while (this.frames.filter(match).length < count) {
      if (Date.now() > deadline || this.socket.readyState === WebSocket.CLOSED) throw new Error(`expected ${count} frames, got ${JSON.stringify(this.frames.filter(match))}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    return this.frames.filter(match);
  }

  /** Sends a subscribe frame and waits for its answer (subscribed or error). */
  async subscribe(topic: string, cursor?: string): Promise<Frame> {
    const from = this.frames.length;
    this.send({ type: 'subscribe', topic, ...(cursor === undefined ? {} : { cursor }) });
    return this.next((f) => f['topic'] === topic && (f['type'] === 'subscribed' || f['type'] === 'error'), 5000, from);
  }

  /** A ping round trip: every frame sent before it has been handled once the pong is back. */
  async settle(): Promise<void> {
    const from = this.frames.length;
    this.send({ type: 'ping' });
    await this.next((f) => f['type'] === 'pong', 5000, from);
  }

  close(): void {
    this.socket.close();
  }
}

/** The socket URL; compact frames asked for when TEST_WS_ENCODING=compact (or `compact`). */
export function wsUrl(base: string, appid: string, query = '', compact = compactByDefault): string {
  const asked = compact ? `${query === '' ? '?' : `${query}&`}${COMPACT_QUERY}` : query;
  return `${base.replace(/^http/, 'ws')}/api/v3/${appid}/ws${asked}`;
}

/** Opens a socket; resolves once open (not yet authenticated). A URL asking for compact frames gets them read back. */
export async function open(url: string, headers: Record<string, string> = {}): Promise<WsClient> {
  const socket = new WebSocket(url, { headers });
  const client = new WsClient(socket);
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  return client;
}

/** Opens a socket with the app token in the header and waits for `ready`. */
export async function connect(base: string, appid: string, token: string, jwt?: string, compact = compactByDefault): Promise<WsClient> {
  const client = await open(wsUrl(base, appid, '', compact), { 'x-api-token': token, ...(jwt === undefined ? {} : { authorization: `Bearer ${jwt}` }) });
  await client.next((f) => f['type'] === 'ready');
  return client;
}

/**
 * A WebSocket handshake written by hand, with headers no client library would send (e.g.
 * `Connection: close`); resolves with what the server sent once the `ready` frame arrived, the
 * server closed the connection, or `ms` passed.
 */
export function rawUpgrade(base: string, appid: string, headers: Record<string, string>, ms = 5000): Promise<{ received: string; closed: boolean }> {
  const { hostname, port } = new URL(base);
  const head = [
    `GET /api/v3/${appid}/ws HTTP/1.1`,
    `Host: ${hostname}:${port}`,
    'Upgrade: websocket',
    'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==',
    'Sec-WebSocket-Version: 13',
    ...Object.entries({ connection: 'Upgrade', ...headers }).map(([name, value]) => `${name}: ${value}`),
  ];
  return new Promise((resolve) => {
    const socket = createConnection(Number(port), hostname);
    let received = '';
    const done = (closed: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ received, closed });
    };
    const timer = setTimeout(() => done(false), ms);
    socket.on('connect', () => socket.write(`${head.join('\r\n')}\r\n\r\n`));
    socket.on('data', (data: Buffer) => {
      received += data.toString('latin1');
      if (received.includes('"type":"ready"')) done(false);
    });
    socket.on('close', () => done(true));
    socket.on('error', () => done(true));
  });
}
