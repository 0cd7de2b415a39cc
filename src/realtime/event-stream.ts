import type { HttpResponse } from 'uWebSockets.js';
import { jsonOnce } from '../json-once.js';
import { endAnswer } from '../http/head.js';
import { statusLine } from '../http/status.js';
import { envelope } from '../http/envelope.js';
import { GzipStream, pack, type Packed } from './gzip-stream.js';
import type { LiveMessage } from './live.js';
import { goingAwayReason } from './protocol.js';

/**
 * One `text/event-stream` response: the status and headers go out with the first write (so a
 * refusal found before it is still an HTTP error), then events and comments. A reader further
 * behind than `maxUnsent` bytes is cut off, as a WebSocket would be with 4008. For a client that
 * takes gzip (every browser's EventSource) the stream is one gzip member (GzipStream): an event's
 * text, or a replayed slice's, is deflated once for every stream that sends the same bytes.
 */
export class EventStream {
  closed = false;
  /** The status and headers went out: refusals can no longer be HTTP statuses. */
  started = false;
  private unsent = 0;
  /** uWS holds bytes the socket has not taken: what is written meanwhile waits here, see `drain`. */
  private backedUp = false;
  private held: Buffer[] = [];
  private readonly onEnd: (() => void)[] = [];
  /** What is written while `batch` runs, written at its end. */
  private batched: (string | Buffer)[] | undefined;
  private readonly gzip: GzipStream | undefined;
  /** Goes out first, with the browser's reconnect delay (a compact stream's dictionary). */
  private preamble = RECONNECT_AFTER;

  constructor(
    private readonly res: HttpResponse,
    private readonly headers: [string, string][],
    private readonly maxUnsent: number,
    /** Answering HEAD: refusals and the opening carry no body. */
    private readonly head = false,
    /** The client takes gzip: the stream goes gzipped (`content-encoding` is added to the headers). */
    gzip = false,
  ) {
    if (gzip) {
      this.gzip = new GzipStream();
      this.headers = [...headers, ['content-encoding', 'gzip']];
    }
    res.onAborted(() => this.ended());
    res.onWritable(() => this.drain());
  }

  /** Bytes written that the reader has not taken in yet (as far as uWS has told). */
  get unsentBytes(): number {
    return this.unsent;
  }

  /** Called once the stream ends (at once if it already has). */
  whenEnded(listener: () => void): void {
    if (this.closed) listener();
    else this.onEnd.push(listener);
  }

  /** `id:` (when given), `event:` and `data:` (the REST object) of one live message. */
  event(message: LiveMessage, id: string | undefined): void {
    this.write(id !== undefined && id === message.cursor ? atOwnCursor(message) : eventText(message, id));
  }

  /** Text made elsewhere (a compact stream's items: sse-compact.ts), written as it is. */
  piece(text: string | Buffer): void {
    this.write(text);
  }

  /** Text to go out first, before anything else (the stream must not have started). */
  preface(text: string): void {
    this.preamble = `${RECONNECT_AFTER}${text}`;
  }

  /** What `send` writes goes out corked, as one write to the socket. */
  batch(send: () => void): void {
    if (this.batched !== undefined) return send();
    this.batched = [];
    try {
      send();
    } finally {
      const parts = this.batched;
      this.batched = undefined;
      if (parts.length > 0) this.writeAll(parts);
    }
  }

  /**
   * Sends the status and headers (with a first comment) if nothing has gone out yet: the browser's
   * EventSource opens. `id` (the stream's position) is its Last-Event-ID from then on, so a cut
   * before the first event still resumes from here.
   */
  open(id: string | undefined): void {
    if (!this.started) this.write(id === undefined ? ':ok\n\n' : `id:${id}\n:ok\n\n`);
  }

  /** To HEAD: the status and headers the stream would open with, and the end. */
  headersOnly(): void {
    if (this.closed) return;
    this.res.cork(() => {
      this.res.writeStatus('200 OK');
      for (const [name, value] of this.headers) this.res.writeHeader(name, value);
      // As GET's stream is sent. Without a length or this, clients (Node's) take the connection as ending here and drop it.
      this.res.writeHeader('transfer-encoding', 'chunked').endWithoutBody();
    });
    this.ended();
  }

  /** A comment line: keeps proxies and the browser from thinking the stream dead. */
  comment(text: string): void {
    this.write(`:${text}\n\n`);
  }

  /** Server shutting down: a started stream is told (`retry:`) how long to wait before the browser reconnects, then ends; one not started is answered 503. */
  goAway(delayMs: number): void {
    if (this.started) this.write(`retry:${delayMs}\n:${goingAwayReason(delayMs)}\n\n`);
    this.end(503, envelope(503, 'The server is shutting down; reconnect to another node.', null));
  }

  /** Ends the stream; before it started, answers `status` with the envelope instead. */
  end(status: number, body: string): void {
    if (this.closed) return;
    this.res.cork(() => {
      if (this.started) this.res.end(Buffer.concat([...this.held.splice(0), this.gzip?.end() ?? NOTHING]));
      else endAnswer(this.res.writeStatus(statusLine(status)).writeHeader('content-type', 'application/json; charset=utf-8'), body, this.head);
    });
    this.ended();
  }

  private write(text: string | Buffer): void {
    if (this.batched !== undefined) this.batched.push(text);
    else this.writeAll([text]);
  }

  /**
   * The parts as one write: while a socket holds unsent bytes, uWS tries to flush them and shifts
   * what is left on every write, so many small writes to a reader that is behind cost far more than one.
   */
  private writeAll(parts: (string | Buffer)[]): void {
    if (this.closed) return;
    if (!this.started) parts.unshift(this.preamble);
    const bytes = this.gzip === undefined ? joined(parts) : this.gzip.piece(packed(parts));
    if (this.backedUp) {
      const held = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes);
      this.held.push(held);
      this.unsent += held.length;
    } else
      this.res.cork(() => {
        if (!this.started) {
          this.started = true;
          this.res.writeStatus('200 OK');
          for (const [name, value] of this.headers) this.res.writeHeader(name, value);
        }
        if (!this.res.write(bytes)) {
          this.backedUp = true;
          this.unsent += bytes.length;
        }
      });
    if (this.unsent > this.maxUnsent) {
      this.res.close();
      this.ended();
    }
  }

  /**
   * The socket took bytes in. uWS sends what it holds only when something is written (a response
   * with a writable handler is not drained on its own), and retries, and shifts what is left, on
   * every write: so what came meanwhile goes now as one write, or a piece that shows nothing when
   * nothing came, and the backlog drains at the reader's pace rather than at the next event's.
   */
  private drain(): boolean {
    // Before the stream opened nothing is held: a write now would go out ahead of its status and headers.
    if (this.closed || !this.started) return true;
    const bytes = this.held.length > 0 ? Buffer.concat(this.held.splice(0)) : this.gzip === undefined ? KEEP_GOING : this.gzip.piece(NOTHING_PACKED);
    let written = true;
    this.res.cork(() => {
      written = this.res.write(bytes);
    });
    this.backedUp = !written;
    this.unsent = written ? 0 : bytes.length;
    return true;
  }

  private ended(): void {
    if (this.closed) return;
    this.closed = true;
    for (const listener of this.onEnd.splice(0)) listener();
  }
}

const NOTHING = Buffer.alloc(0);
/** Written to drain a backed-up stream when nothing else is to go: an empty comment (plain), an empty deflate block (gzipped). */
const KEEP_GOING = Buffer.from(':\n\n');
const NOTHING_PACKED = pack(NOTHING);

/** The stream's first line: the browser waits this long before it reconnects. */
const RECONNECT_AFTER = 'retry:1000\n\n';

function eventText(message: LiveMessage, id: string | undefined): string {
  const head = id === undefined ? '' : `id:${id}\n`;
  return `${head}event:${message.type}\ndata:${jsonOnce(message.data)}\n\n`;
}

/**
 * A stream following one resumable topic is at each event's own cursor, so the event's text is
 * the same for every such stream (live, and in a crowd's replay): made once per event.
 */
const ownCursorBytes = new WeakMap<LiveMessage, Buffer>();

function atOwnCursor(message: LiveMessage): Buffer {
  let bytes = ownCursorBytes.get(message);
  if (bytes === undefined) {
    bytes = Buffer.from(eventText(message, message.cursor));
    ownCursorBytes.set(message, bytes);
  }
  return bytes;
}

const joined = (parts: (string | Buffer)[]): string | Buffer =>
  parts.length === 1 ? (parts[0] as string | Buffer) : Buffer.concat(parts.map((part) => (typeof part === 'string' ? Buffer.from(part) : part)));

/**
 * Parts deflated for a gzipped stream, keyed by their first: parts that are all shared bytes (an
 * event at its own cursor, a replayed slice of them) are the same for every stream sending them,
 * so they are deflated once.
 */
const packedParts = new WeakMap<Buffer, { last: Buffer; count: number; packed: Packed }>();

function packed(parts: (string | Buffer)[]): Packed {
  const first = parts[0];
  const last = parts.at(-1);
  const shared = Buffer.isBuffer(first) && Buffer.isBuffer(last) && parts.every((part) => Buffer.isBuffer(part));
  if (!shared) return pack(Buffer.from(joined(parts)));
  const held = packedParts.get(first);
  if (held !== undefined && held.last === last && held.count === parts.length) return held.packed;
  const made = pack(Buffer.from(joined(parts)));
  packedParts.set(first, { last, count: parts.length, packed: made });
  return made;
}
