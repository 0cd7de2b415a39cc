import type { WebSocket } from 'uWebSockets.js';
import type { Actor, Application, TokenScope } from '../apps/types.js';
import type { FrameBudget } from '../limits/frame-budget.js';
import { wsMetrics } from '../metrics/registry.js';
import type { Backpressure } from './backpressure.js';
import { CLOSE, errorFrame, type ErrorCode } from './protocol.js';

/** What one socket carries from upgrade to close. */
export interface Connection {
  appId: string;
  /** The client's address, for the failed-authentication lockout. */
  address: string;
  /** Undefined when rate limits are off. */
  frames: FrameBudget | undefined;
  /** Credentials given on the upgrade request, checked once the socket opens. */
  offered: { token: string; jwt: string } | undefined;
  /** The upgrade request's Origin header ('' when not sent). */
  origin: string;
  app: Application | undefined;
  /** The API token's id and scope, once authenticated. */
  tokenId: string | undefined;
  scope: TokenScope;
  actor: Actor | null;
  /** Client topic names this socket is subscribed to (live or still replaying), each with its subscription's serial. */
  topics: Map<string, number>;
  /** Asked for compact frames (`?encoding=compact`, docs/realtime.md). */
  compact: boolean;
  /** Takes replayed batches deflated, as binary frames (`?compress=deflate-raw`). */
  deflate: boolean;
  /** The compact dictionary the client says it holds (`?dictionary=`), '' when none. */
  dictionary: string;
  /** Topics still replaying or in their grace period: how to stop that. */
  resuming: Map<string, () => void>;
  /** Frames are handled one after another, in arrival order. */
  queue: Promise<void>;
  authTimer: NodeJS.Timeout | undefined;
  closed: boolean;
  /** Gives the socket's place back to the connection admission (limits/connections.ts). */
  release: () => void;
}

export type Socket = WebSocket<Connection>;

/** What the upgrade asked of the frames (docs/realtime.md, Compact frames). */
export interface Encoding {
  compact: boolean;
  deflate: boolean;
  dictionary: string;
}

export function newConnection(appId: string, address: string, frames: FrameBudget | undefined, offered: Connection['offered'], origin: string, encoding: Encoding, release: () => void): Connection {
  return {
    appId,
    address,
    frames,
    offered,
    origin,
    app: undefined,
    tokenId: undefined,
    scope: 'client',
    actor: null,
    topics: new Map(),
    ...encoding,
    resuming: new Map(),
    queue: Promise.resolve(),
    authTimer: undefined,
    closed: false,
    release,
  };
}

/**
 * Sends one frame unless the socket is gone; a socket already holding more than the limit of
 * unsent bytes is a slow consumer and is closed with 4008 instead.
 */
export function sendFrame(ws: Socket, frame: string, backpressure: Backpressure): void {
  const conn = ws.getUserData();
  if (conn.closed) return;
  if (ws.getBufferedAmount() > backpressure.limit || ws.send(frame) === 2) return closeSocket(ws, CLOSE.slowConsumer, 'slow consumer');
  backpressure.sent(frame);
  wsMetrics.framesSentDirect.inc();
}

/** A frame sent as binary: a compact batch deflated (raw DEFLATE), for a socket that asked for it. */
export class BinaryFrame {
  constructor(readonly bytes: Buffer) {}
}

/** Frames sent corked into one write (a replay slice, the live items held during it); like sendFrame, a slow consumer is closed instead. */
export function sendFrames(ws: Socket, frames: readonly (string | Buffer | BinaryFrame)[], backpressure: Backpressure): void {
  const conn = ws.getUserData();
  if (conn.closed) return;
  if (ws.getBufferedAmount() > backpressure.limit) return closeSocket(ws, CLOSE.slowConsumer, 'slow consumer');
  let bytes = 0;
  let dropped = false;
  ws.cork(() => {
    for (const frame of frames) {
      const binary = frame instanceof BinaryFrame;
      const payload = binary ? frame.bytes : frame;
      if (ws.send(payload, binary) === 2) {
        dropped = true;
        return;
      }
      bytes += payload.length;
    }
  });
  if (dropped) return closeSocket(ws, CLOSE.slowConsumer, 'slow consumer');
  backpressure.sentMany(bytes, frames.length);
  wsMetrics.framesSentDirect.inc(frames.length);
}

export function sendError(ws: Socket, backpressure: Backpressure, code: ErrorCode, message: string, topic?: string): void {
  sendFrame(ws, errorFrame(code, message, topic), backpressure);
}

export function closeSocket(ws: Socket, code: number, reason: string): void {
  const conn = ws.getUserData();
  if (conn.closed) return;
  conn.closed = true;
  if (code === CLOSE.slowConsumer) wsMetrics.slowConsumersClosed.inc();
  ws.end(code, reason);
}
