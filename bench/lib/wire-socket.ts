import { inflateRawSync } from 'node:zlib';
import { CompactStream, type Frame } from '../../client/src/compact-stream.js';
import { RawSocket } from '../ws-fanout-raw.js';

/** How a bench socket asks for its frames: as a plain client, or as engage-client does (compact, deflated batches). */
export type Mode = 'plain' | 'compact';
export const QUERY: Record<Mode, string> = { plain: '', compact: '&encoding=compact&compress=deflate-raw' };

/**
 * One socket that counts the bytes it receives on its TCP connection and reads every frame back
 * (a compact one with engage-client's own decoder), so what it counts is what a client needs.
 */
export class WireSocket {
  readonly events: Frame[] = [];
  private stream = new CompactStream();
  private marked = 0;

  private constructor(
    readonly mode: Mode,
    private readonly raw: RawSocket,
  ) {}

  static async open(base: string, appid: string, token: string, mode: Mode): Promise<WireSocket> {
    let socket: WireSocket | undefined;
    const early: Buffer[] = [];
    const take = (text: string) => {
      for (const frame of socket?.stream.frames(JSON.parse(text)) ?? []) if (frame.type === 'event') socket?.events.push(frame);
    };
    const raw = await RawSocket.open(`${base.replace(/^http/, 'ws')}/api/v3/${appid}/ws?token=${encodeURIComponent(token)}${QUERY[mode]}`, (payload) =>
      socket === undefined ? early.push(Buffer.from(payload)) : take(payload.toString()),
    );
    socket = new WireSocket(mode, raw);
    raw.onBinary = (payload) => take(inflateRawSync(payload).toString());
    for (const payload of early) take(payload.toString());
    return socket;
  }

  send(frame: object): void {
    this.raw.send(JSON.stringify(frame));
  }

  /** Starts counting from here. */
  mark(): void {
    this.marked = this.raw.bytesRead;
    this.events.length = 0;
  }

  /** Bytes received since the mark. */
  get bytes(): number {
    return this.raw.bytesRead - this.marked;
  }

  async until(count: number, seconds = 120): Promise<void> {
    const deadline = performance.now() + seconds * 1000;
    while (this.events.length < count) {
      if (performance.now() > deadline) throw new Error(`${this.mode} socket: ${this.events.length} of ${count} events after ${seconds} s`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  close(): void {
    this.raw.close();
  }
}
