import type { Socket } from './connection.js';

/** The most a WebSocket frame header adds to a server frame's payload. */
const FRAME_HEADER_BYTES = 10;

/**
 * Finds the sockets holding more than `limit` unsent bytes without asking every socket on every
 * sweep. A socket's unsent bytes grow only by what is sent to it, so a socket that held at most
 * `limit / 2` at the last full look holds at most that plus every byte sent since (to anyone):
 * until that sum could pass the limit, a sweep looks only at the sockets that held more.
 */
export class Backpressure {
  private readonly watchAbove: number;
  /** Bytes sent since the last full look: the most any unwatched socket has gained since. */
  private sinceFullLook = 0;
  /** Bytes sent since the last sweep: uWS may not have queued them on the sockets yet when a sweep reads them. */
  private sinceSweep = 0;
  private readonly watched = new Set<Socket>();
  /** Schedules the next sweep (set by sweepAfterSends). */
  private arm: (() => NodeJS.Timeout) | undefined;
  private pending: NodeJS.Timeout | undefined;

  constructor(readonly limit: number) {
    this.watchAbove = Math.floor(limit / 2);
  }

  /**
   * Calls `sweep` every `delayMs` while frames are sent, and once more after the last: bytes
   * counted just before a sweep may reach the sockets only after it. Sockets pass the limit only
   * by what is sent to them, so a quiet server is not woken for it (a fixed interval woke it ten
   * times a second).
   */
  sweepAfterSends(sweep: () => void, delayMs: number): void {
    const run = () => {
      this.pending = this.sinceSweep > 0 ? arm() : undefined;
      sweep();
    };
    const arm = () => setTimeout(run, delayMs).unref();
    this.arm = arm;
  }

  stopSweeping(): void {
    clearTimeout(this.pending);
    this.arm = undefined;
  }

  /** A frame was sent to one socket or published to many. */
  sent(frame: string): void {
    this.sentBytes(Buffer.byteLength(frame) + FRAME_HEADER_BYTES);
  }

  /** `frames` frames of `payload` bytes in all were sent to one socket. */
  sentMany(payload: number, frames: number): void {
    this.sentBytes(payload + frames * FRAME_HEADER_BYTES);
  }

  private sentBytes(bytes: number): void {
    this.sinceFullLook += bytes;
    this.sinceSweep += bytes;
    if (this.pending === undefined && this.arm !== undefined) this.pending = this.arm();
  }

  /** The socket closed (uWS refuses calls on a closed socket). */
  forget(ws: Socket): void {
    this.watched.delete(ws);
  }

  /** Calls `slow` with each socket past the limit; `open` holds every open socket. */
  sweep(open: ReadonlySet<Socket>, slow: (ws: Socket) => void): void {
    const full = this.sinceFullLook + this.watchAbove > this.limit;
    if (full) {
      // Bytes counted since the last sweep may reach the sockets only after this look.
      this.sinceFullLook = this.sinceSweep;
      this.watched.clear();
    }
    this.sinceSweep = 0;
    for (const ws of full ? open : this.watched) {
      const buffered = ws.getBufferedAmount();
      if (buffered > this.watchAbove && buffered <= this.limit) {
        this.watched.add(ws);
        continue;
      }
      this.watched.delete(ws);
      if (buffered > this.limit) slow(ws);
    }
  }
}
