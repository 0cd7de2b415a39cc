import { connect, type Socket } from 'node:net';
import { StringDecoder } from 'node:string_decoder';
import { constants, inflateRawSync } from 'node:zlib';
import { DecodedOnce } from './decoded-once.js';

/** A gzip member's header (RFC 1952, no optional fields, as the server writes it). */
const GZIP_HEADER_BYTES = 10;
/** Chunks as text: streams of the same room are sent the same deflated bytes (see DecodedOnce). */
const inflatedChunks = new DecodedOnce<string>(4096);

/** One server-sent event: its `id:` (a room's cursor), its `event:` name and its `data:` line. */
export interface RawSseEvent {
  id: string | undefined;
  event: string;
  data: string;
}

/** How a stream opened: 200 and then events, or a refusal with its status and body. */
export interface SseOpening {
  status: number;
  body: string;
}

/**
 * A minimal `text/event-stream` reader over plain TCP for the load generator: it reads the status
 * line, undoes chunked transfer encoding and hands each event to one callback, far cheaper per
 * event than fetch and a TextDecoder stream. Single-line `data:` only (the server writes JSON). A
 * gzipped stream (asked for with `accept-encoding: gzip`, as a browser's EventSource does) is
 * inflated chunk by chunk, each at once and on its own: the server deflates every write apart and
 * flushes it (src/realtime/gzip-stream.ts), so a chunk needs nothing of the ones before it, and the
 * load generator skips a zlib stream's trips through the thread pool per event (a browser inflates
 * the stream natively, as it comes).
 */
export class RawSse {
  private head = Buffer.alloc(0);
  private opened = false;
  private chunked = false;
  /** Bytes left of the current chunk (chunked encoding); -1 while reading a chunk-size line. */
  private chunkLeft = -1;
  private line = '';
  private text = '';
  private readonly decoder = new StringDecoder('utf8');
  private gzipped = false;
  /** The gzip header is still to be skipped (it leads the first chunk). */
  private headerAhead = true;
  /** The gzipped chunk read so far. */
  private deflated: Buffer[] = [];

  private constructor(
    private readonly socket: Socket,
    private readonly onEvent: (event: RawSseEvent) => void,
  ) {}

  /** Opens `url` (http://host:port/path?query) with `headers`; resolves once the status is known. `onClose` is told when the connection ends. */
  static open(url: string, headers: Record<string, string>, onEvent: (event: RawSseEvent) => void, onClose: () => void): Promise<{ sse: RawSse; opening: SseOpening }> {
    const { host, hostname, port, pathname, search } = new URL(url);
    return new Promise((resolve, reject) => {
      const socket = connect(Number(port || 80), hostname);
      const sse = new RawSse(socket, onEvent);
      let settled = false;
      socket.setNoDelay(true);
      socket.on('error', (err) => {
        if (!settled) reject(err);
        settled = true;
      });
      socket.once('close', () => {
        if (!settled) reject(new Error('closed before answering'));
        settled = true;
        onClose();
      });
      socket.once('connect', () => {
        const extra = Object.entries(headers)
          .map(([k, v]) => `${k}: ${v}\r\n`)
          .join('');
        socket.write(`GET ${pathname}${search} HTTP/1.1\r\nHost: ${host}\r\nAccept: text/event-stream\r\n${extra}\r\n`);
      });
      socket.on('data', (chunk: Buffer) => {
        if (sse.opened) return sse.read(chunk);
        sse.head = Buffer.concat([sse.head, chunk]);
        const end = sse.head.indexOf('\r\n\r\n');
        if (end < 0) return;
        const header = sse.head.toString('latin1', 0, end);
        const rest = sse.head.subarray(end + 4);
        const status = Number(header.slice(9, 12));
        if (status !== 200) {
          // A refusal is short: its body (content-length) comes with the headers or just after.
          const length = Number(/content-length: *(\d+)/i.exec(header)?.[1] ?? 0);
          if (rest.length < length) return;
          settled = true;
          socket.destroy();
          return resolve({ sse, opening: { status, body: rest.toString('utf8') } });
        }
        sse.opened = true;
        sse.chunked = /transfer-encoding: *chunked/i.test(header);
        sse.gzipped = /content-encoding: *gzip/i.test(header);
        if (sse.gzipped && !sse.chunked) {
          socket.destroy();
          return reject(new Error('a gzipped stream is read chunk by chunk: it must come chunked'));
        }
        settled = true;
        resolve({ sse, opening: { status, body: '' } });
        if (rest.length > 0) sse.read(rest);
      });
    });
  }

  /** Resets the connection (no TIME_WAIT left behind). */
  close(): void {
    this.socket.resetAndDestroy();
  }

  /** Bytes of the body (chunked encoding undone); `chunkEnds` when they end a chunk. */
  private body(bytes: Buffer, chunkEnds: boolean): void {
    if (!this.gzipped) return this.parse(this.decoder.write(bytes));
    this.deflated.push(Buffer.from(bytes));
    if (!chunkEnds) return;
    const chunk = Buffer.concat(this.deflated.splice(0));
    const deflated = this.headerAhead ? chunk.subarray(GZIP_HEADER_BYTES) : chunk;
    this.headerAhead = false;
    try {
      // The stream's last chunk ends the member (a final block and the trailer): what follows the final block is not inflated.
      this.parse(inflatedChunks.of(deflated.toString('latin1'), () => inflateRawSync(deflated, { finishFlush: constants.Z_SYNC_FLUSH }).toString()));
    } catch {
      this.socket.destroy();
    }
  }

  private read(data: Buffer): void {
    if (!this.chunked) return this.body(data, false);
    let offset = 0;
    while (offset < data.length) {
      if (this.chunkLeft > 0) {
        const take = Math.min(this.chunkLeft, data.length - offset);
        this.chunkLeft -= take;
        this.body(data.subarray(offset, offset + take), this.chunkLeft === 0);
        offset += take;
        // The CRLF after a chunk's data comes next.
        if (this.chunkLeft === 0) this.chunkLeft = -2;
        continue;
      }
      // -2: the CRLF after a chunk's data; -1: a chunk-size line.
      const end = data.indexOf(0x0a, offset);
      if (end < 0) {
        this.line += data.toString('latin1', offset);
        return;
      }
      const line = (this.line + data.toString('latin1', offset, end)).trim();
      this.line = '';
      offset = end + 1;
      if (this.chunkLeft === -2) {
        this.chunkLeft = -1;
        continue;
      }
      const size = Number.parseInt(line, 16);
      if (size === 0) return;
      this.chunkLeft = size;
    }
  }

  private parse(piece: string): void {
    this.text += piece;
    for (let end = this.text.indexOf('\n\n'); end >= 0; end = this.text.indexOf('\n\n')) {
      const block = this.text.slice(0, end);
      this.text = this.text.slice(end + 2);
      let id: string | undefined;
      let event = 'message';
      let data = '';
      for (const line of block.split('\n')) {
        if (line.startsWith('id:')) id = line.slice(3);
        else if (line.startsWith('event:')) event = line.slice(6);
        else if (line.startsWith('data:')) data = line.slice(5);
      }
      if (data !== '') this.onEvent({ id, event, data });
    }
  }
}
