import { inflateRawSync } from 'node:zlib';
import { RawSocket } from '../ws-fanout-raw.js';
import { DecodedOnce } from './decoded-once.js';
import { RawSse, type RawSseEvent } from './raw-sse.js';

export type Transport = 'ws' | 'sse';

/** Where a fan follows its room: one node or several (tried in turn when one cannot be reached). */
export interface FanRoute {
  /** Base URLs, `http://host:port`. */
  endpoints: string[];
  appid: string;
  token: string;
  roomId: string;
}

export interface FanOptions {
  transport: Transport;
  /** The room's `updates` cursor to resume after, and the feed position it holds. */
  cursor: string;
  seq: number;
  /** Keep every event id received, in order (for a check against the feed; costs a JSON parse per event). */
  recordIds?: boolean;
  /** Full-jitter reconnect backoff: a delay drawn in [0, min(cap, base × 2^attempt)). */
  backoffBaseMs?: number;
  backoffCapMs?: number;
  /** How long an event past a hole in `seq` waits for the ones before it (two nodes publish as they commit). */
  holeMs?: number;
  /** Index into `endpoints` of the node to try first. */
  firstEndpoint?: number;
  /** Compact frames (docs/realtime.md): WebSocket fans with deflated batches as engage-client asks, event streams with `?encoding=compact`. */
  compact?: boolean;
}

/** REST `updates` pages a fan too far behind reads, as engage-client does (client/src/live-client.ts). */
const CATCHUP_PAGE = 500;
const SEQ = Buffer.from('"seq":');
const CURSOR = Buffer.from('"cursor":"');

/** A cursor as text, the frame it is read from, or the seq it is made of (compact frames leave it out). */
type Cursor = string | Buffer | number;

/** The `updates` cursor after `seq` (what compact frames leave out). */
const updatesCursor = (seq: number) => Buffer.from(`{"u":${seq}}`).toString('base64url');

/** A compact batch's items: each one's seq, and its id (packed). */
interface BatchItems {
  seqs: number[];
  ids: string[];
}

/** Deflated batches (WebSocket binary frames) as text, and compact frames parsed: see DecodedOnce. */
const inflatedBatches = new DecodedOnce<string>();
const parsedBatches = new DecodedOnce<BatchItems>();
const parsedItems = new DecodedOnce<unknown[]>(4096);

/** `{"type":"batch","p":prev,"e":[…]}`: an item's seq follows the one before it unless the item is `[data, seq, …]`. */
function batchItems(text: string): BatchItems {
  const batch = JSON.parse(text) as { p: number | null; e: unknown[] };
  const seqs: number[] = [];
  const ids: string[] = [];
  let seq = batch.p ?? 0;
  for (const item of batch.e) {
    const data = (Array.isArray(item) ? item[0] : item) as { i: string };
    seq = Array.isArray(item) ? (item[1] as number) : seq + 1;
    seqs.push(seq);
    ids.push(data.i);
  }
  return { seqs, ids };
}

/** A compact frame's id (its 16 bytes, base64url) as REST writes it. */
function unpackedId(packed: string): string {
  const hex = Buffer.from(packed, 'base64url').toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The feed position an `updates` cursor holds (base64url JSON `{"u":seq}`). */
export function seqOfCursor(cursor: string): number {
  const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { u?: number };
  if (typeof value.u !== 'number') throw new Error(`not an updates cursor: ${cursor}`);
  return value.u;
}

/**
 * One fan of a room over a WebSocket (raw frames, resuming by subscribe with its cursor) or
 * server-sent events (resuming by Last-Event-ID), as a real client would: it reconnects with
 * full-jitter backoff, catches up through REST `updates` pages when the server says it is too far
 * behind, then follows again from their cursor. It counts what breaks exactly-once, in-order
 * delivery: `gaps` (positions never delivered) and `repeats` (a position delivered again).
 */
export class StormFan {
  /** The feed position of the last event delivered in order. */
  seq: number;
  delivered = 0;
  gaps = 0;
  repeats = 0;
  /** Events that arrived after a higher seq (put back in order; only two nodes cause it). */
  lateArrivals = 0;
  /** Connections opened after the first. */
  reconnects = 0;
  /** Times the server refused the resume as too far behind and REST pages were read. */
  restCatchUps = 0;
  /** Subscribed (WebSocket) or stream open (SSE). */
  live = false;
  readonly ids: string[] = [];
  /** The last refusal or failure seen, for the report. */
  lastProblem = '';
  /** performance.now() when `seq` first reached `goal`. */
  reachedAt: number | undefined;
  private goal = Number.POSITIVE_INFINITY;
  /**
   * The cursor, or where it is read from when it is needed: the frame holding it, or the seq it is
   * made of (reading or making it for every event would cost the load generator).
   */
  private cursorAt: Cursor;
  private readonly held = new Map<number, { cursor: Cursor; id: string | undefined }>();
  private holeTimer: NodeJS.Timeout | undefined;
  private attempt = 0;
  private opened = 0;
  private endpoint: number;
  private closing: (() => void) | undefined;
  private stopped = false;

  constructor(
    private readonly route: FanRoute,
    private readonly options: FanOptions,
  ) {
    this.seq = options.seq;
    this.cursorAt = options.cursor;
    this.endpoint = options.firstEndpoint ?? 0;
  }

  get transport(): Transport {
    return this.options.transport;
  }

  get recordsIds(): boolean {
    return this.options.recordIds === true;
  }

  get cursor(): string {
    const at = this.cursorAt;
    if (typeof at === 'number') this.cursorAt = updatesCursor(at);
    else if (typeof at !== 'string') {
      const from = at.lastIndexOf(CURSOR) + CURSOR.length;
      this.cursorAt = at.toString('latin1', from, at.indexOf(0x22, from));
    }
    return this.cursorAt as string;
  }

  /** Remember when `seq` first reaches `seq` (at once if it has). */
  watch(seq: number): void {
    this.goal = seq;
    this.reachedAt = this.seq >= seq ? performance.now() : undefined;
  }

  /** Connects and resolves once following (subscribed, or the stream open). */
  async start(): Promise<void> {
    this.connect();
    const deadline = performance.now() + 60_000;
    while (!this.live) {
      if (performance.now() > deadline) throw new Error(`a ${this.transport} fan did not subscribe: ${this.lastProblem}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.holeTimer);
    this.closing?.();
  }

  private get base(): string {
    return this.route.endpoints[this.endpoint % this.route.endpoints.length] as string;
  }

  private connect(): void {
    if (this.stopped) return;
    if (this.opened++ > 0) this.reconnects++;
    if (this.transport === 'ws') this.connectSocket();
    else void this.connectStream();
  }

  /** The connection ended (or never opened): try again after a full-jitter delay, the next node first when it never opened. */
  private lost(problem: string, neverOpened: boolean): void {
    this.live = false;
    this.closing = undefined;
    this.lastProblem = problem;
    this.dropHeld();
    if (this.stopped) return;
    if (neverOpened) this.endpoint++;
    const ceiling = Math.min(this.options.backoffCapMs ?? 1000, (this.options.backoffBaseMs ?? 100) * 2 ** this.attempt);
    this.attempt++;
    setTimeout(() => this.connect(), Math.random() * ceiling);
  }

  private connectSocket(): void {
    const { appid, token, roomId } = this.route;
    const url = `${this.base.replace(/^http/, 'ws')}/api/v3/${appid}/ws?token=${encodeURIComponent(token)}${this.options.compact === true ? '&encoding=compact&compress=deflate-raw' : ''}`;
    let socket: RawSocket | undefined;
    let ended = false;
    const end = (problem: string, neverOpened: boolean) => {
      if (ended) return;
      ended = true;
      this.lost(problem, neverOpened);
    };
    const subscribe = () => socket?.send(JSON.stringify({ type: 'subscribe', topic: `room:${roomId}`, cursor: this.cursor }));
    // Frames that came with the upgrade's answer, before the socket was handed over.
    const early: Buffer[] = [];
    const onText = (frame: Buffer) => {
      if (socket === undefined) return void early.push(Buffer.from(frame));
      // `{"type":"event"…`: bytes 9 and 10 are `e` `v`; a compact item is an array.
      if (frame[9] === 0x65 && frame[10] === 0x76) return this.frameEvent(frame);
      if (frame[0] === 0x5b) {
        const text = frame.toString();
        return this.compactItem(parsedItems.of(text, () => JSON.parse(text) as unknown[]));
      }
      if (frame.subarray(0, 16).toString() === '{"type":"batch",') return this.compactBatch(frame.toString());
      const text = frame.toString();
      if (text.startsWith('{"type":"ready"')) subscribe();
      else if (text.startsWith('{"type":"subscribed"')) this.following();
      else if (text.startsWith('{"type":"error"')) {
        const error = JSON.parse(text) as { code: string; message: string };
        this.lastProblem = `${error.code}: ${error.message}`;
        if (error.code === 'bad_request') void this.catchUp().then(() => !ended && subscribe());
        else socket?.close();
      }
    };
    // A refused connection's close can come before its rejection: it never opened if the socket was not handed over.
    RawSocket.open(url, onText, () => end('connection closed', socket === undefined)).then(
      (opened) => {
        socket = opened;
        opened.onBinary = (deflated) => this.compactBatch(inflatedBatches.of(deflated.toString('latin1'), () => inflateRawSync(deflated).toString()));
        this.closing = () => opened.close();
        if (ended) opened.close();
        for (const frame of early.splice(0)) onText(frame);
      },
      (err: Error) => end(err.message, true),
    );
  }

  private async connectStream(): Promise<void> {
    const { appid, token, roomId } = this.route;
    const url = `${this.base}/api/v3/${appid}/sse?topic=room:${encodeURIComponent(roomId)}&token=${encodeURIComponent(token)}${this.options.compact === true ? '&encoding=compact' : ''}`;
    let ended = false;
    let streaming = false;
    const end = (problem: string, neverOpened: boolean) => {
      if (ended) return;
      ended = true;
      this.lost(problem, neverOpened);
    };
    try {
      const { sse, opening } = await RawSse.open(
        url,
        // As a browser's EventSource asks: the stream comes gzipped.
        { 'last-event-id': this.cursor, ...(process.env['SSE_GZIP'] === 'off' ? {} : { 'accept-encoding': 'gzip, deflate, br' }) },
        (event) => this.streamEvent(event),
        // A refused connection's close can come before its rejection: it never opened unless the stream did.
        () => end('stream closed', !streaming),
      );
      streaming = opening.status === 200;
      if (streaming) {
        this.closing = () => sse.close();
        if (ended) sse.close();
        else this.following();
        return;
      }
      this.lastProblem = `${opening.status}: ${opening.body.slice(0, 200)}`;
      // Too far behind (or a cursor the server no longer resumes): REST pages, then open again at once.
      if (opening.status === 400) {
        ended = true;
        this.live = false;
        await this.catchUp();
        this.connect();
      }
    } catch (err) {
      end((err as Error).message, true);
    }
  }

  private following(): void {
    this.live = true;
    this.attempt = 0;
  }

  private frameEvent(frame: Buffer): void {
    let at = frame.lastIndexOf(SEQ) + SEQ.length;
    let seq = 0;
    for (let c = frame[at] as number; c >= 0x30 && c <= 0x39; c = frame[++at] as number) seq = seq * 10 + c - 0x30;
    const id = this.options.recordIds ? (JSON.parse(frame.toString()) as { data: { id: string } }).data.id : undefined;
    this.arrived(seq, frame, id);
  }

  /** `[t, data, seq, …]`: the seq is the third part (a room's items always carry one). */
  private compactItem(parts: unknown[]): void {
    const seq = parts[2] as number;
    this.arrived(seq, seq, this.options.recordIds ? unpackedId((parts[1] as { i: string }).i) : undefined);
  }

  private compactBatch(text: string): void {
    const { seqs, ids } = parsedBatches.of(text, () => batchItems(text));
    seqs.forEach((seq, i) => this.arrived(seq, seq, this.options.recordIds ? unpackedId(ids[i] as string) : undefined));
  }

  private streamEvent(event: RawSseEvent): void {
    if (event.id === undefined) return;
    if (event.event === 'batch') return this.compactBatch(event.data);
    const id = this.options.recordIds ? this.streamedId(event.data) : undefined;
    this.arrived(seqOfCursor(event.id), event.id, id);
  }

  /** A streamed event's id: its REST object's, or a compact stream's `[topicIndex, data]`. */
  private streamedId(data: string): string {
    const parsed = JSON.parse(data) as { id: string } | [number, { i: string }];
    return Array.isArray(parsed) ? unpackedId(parsed[1].i) : parsed.id;
  }

  private arrived(seq: number, cursor: Cursor, id: string | undefined): void {
    if (seq <= this.seq || this.held.has(seq)) {
      this.repeats++;
      return;
    }
    if (seq !== this.seq + 1) {
      this.held.set(seq, { cursor, id });
      this.holeTimer ??= setTimeout(() => this.holeIsReal(), this.options.holeMs ?? 1000);
      return;
    }
    if (this.held.size > 0) this.lateArrivals++;
    this.deliver(seq, cursor, id);
    for (let next = this.held.get(this.seq + 1); next !== undefined; next = this.held.get(this.seq + 1)) {
      this.held.delete(this.seq + 1);
      this.deliver(this.seq + 1, next.cursor, next.id);
    }
    if (this.held.size === 0) this.clearHoleTimer();
  }

  private deliver(seq: number, cursor: Cursor, id: string | undefined): void {
    this.seq = seq;
    this.delivered++;
    this.cursorAt = cursor;
    if (id !== undefined) this.ids.push(id);
    if (seq >= this.goal && this.reachedAt === undefined) this.reachedAt = performance.now();
  }

  /** The events before the lowest held one did not come within `holeMs`: the hole counts as a gap and delivery goes on past it. */
  private holeIsReal(): void {
    this.holeTimer = undefined;
    if (this.held.size === 0) return;
    const lowest = Math.min(...this.held.keys());
    this.gaps += lowest - this.seq - 1;
    this.seq = lowest - 1;
    const first = this.held.get(lowest);
    if (first !== undefined) this.arrived(lowest, first.cursor, first.id);
  }

  private clearHoleTimer(): void {
    clearTimeout(this.holeTimer);
    this.holeTimer = undefined;
  }

  /** Held events go with the connection: the resume from the cursor brings them again. */
  private dropHeld(): void {
    this.held.clear();
    this.clearHoleTimer();
  }

  /** Reads `updates` pages from the cursor to the end (as engage-client does past the replay horizon). */
  private async catchUp(): Promise<void> {
    this.restCatchUps++;
    this.dropHeld();
    const { appid, token, roomId } = this.route;
    for (let more = true; more && !this.stopped; ) {
      let page: { events: { id: string }[]; cursor: string; more: boolean };
      try {
        const res = await fetch(`${this.base}/api/v3/${appid}/chat/rooms/${encodeURIComponent(roomId)}/updates?limit=${CATCHUP_PAGE}&cursor=${encodeURIComponent(this.cursor)}`, {
          headers: { 'x-api-token': token },
          signal: AbortSignal.timeout(10_000),
        });
        const body = (await res.json()) as { data?: typeof page; message?: string };
        if (!res.ok || body.data === undefined) throw new Error(`updates answered ${res.status}: ${body.message}`);
        page = body.data;
      } catch (err) {
        this.lastProblem = (err as Error).message;
        await new Promise((r) => setTimeout(r, Math.random() * (this.options.backoffCapMs ?? 1000)));
        continue;
      }
      const end = seqOfCursor(page.cursor);
      const from = this.seq;
      // Every feed position between the two cursors is one event (the API token sees them all).
      if (page.events.length !== end - from) this.gaps += Math.abs(end - from - page.events.length);
      page.events.forEach((event, i) => this.deliver(from + i + 1, page.cursor, this.options.recordIds ? event.id : undefined));
      this.seq = end;
      this.cursorAt = page.cursor;
      more = page.more;
    }
  }
}
