import type { WebSocket } from 'uWebSockets.js';
import type { Application } from '../apps/types.js';
import type { Actor } from '../http/route.js';
import { wsMetrics } from '../metrics/registry.js';
import { CLOSE, errorFrame, type ErrorCode } from './protocol.js';

/** What one socket carries from upgrade to close. */
export interface Connection {
  appId: string;
  /** Credentials given on the upgrade request, checked once the socket opens. */
  offered: { token: string; jwt: string } | undefined;
  app: Application | undefined;
  actor: Actor | null;
  /** Client topic names this socket is subscribed to (live or still replaying). */
  topics: Set<string>;
  /** Topics still replaying or in their grace period: how to stop that. */
  resuming: Map<string, () => void>;
  /** Frames are handled one after another, in arrival order. */
  queue: Promise<void>;
  authTimer: NodeJS.Timeout | undefined;
  closed: boolean;
}

export type Socket = WebSocket<Connection>;

export function newConnection(appId: string, offered: Connection['offered']): Connection {
  return { appId, offered, app: undefined, actor: null, topics: new Set(), resuming: new Map(), queue: Promise.resolve(), authTimer: undefined, closed: false };
}

/**
 * Sends one frame unless the socket is gone; a socket already holding more than `limit` unsent
 * bytes is a slow consumer and is closed with 4008 instead.
 */
export function sendFrame(ws: Socket, frame: string, limit: number): void {
  const conn = ws.getUserData();
  if (conn.closed) return;
  if (ws.getBufferedAmount() > limit || ws.send(frame) === 2) return closeSocket(ws, CLOSE.slowConsumer, 'slow consumer');
  wsMetrics.framesSentDirect.inc();
}

export function sendError(ws: Socket, limit: number, code: ErrorCode, message: string, topic?: string): void {
  sendFrame(ws, errorFrame(code, message, topic), limit);
}

export function closeSocket(ws: Socket, code: number, reason: string): void {
  const conn = ws.getUserData();
  if (conn.closed) return;
  conn.closed = true;
  if (code === CLOSE.slowConsumer) wsMetrics.slowConsumersClosed.inc();
  ws.end(code, reason);
}
