import * as v from 'valibot';
import { unstorable } from '../http/storable.js';
import { TOPIC_ID_MAX } from './topics.js';

/** The WebSocket protocol (docs/realtime.md): its own client frames, server frames, close codes, limits. */

export const CLOSE = {
  /** No credentials arrived in time, or a frame other than `auth` came first. */
  authRequired: 4001,
  /** The API token is not this application's, or the user token does not verify. */
  authRefused: 4003,
  /** The socket kept sending past its frame budget, or its address is locked out (RATE_LIMIT_WS_FRAMES, RATE_LIMIT_AUTH_*). */
  rateLimited: 4029,
  /** The socket fell further behind than WS_MAX_BACKPRESSURE bytes. */
  slowConsumer: 4008,
  /** Server shutting down. */
  goingAway: 1001,
  /** A frame larger than MAX_FRAME_BYTES. */
  tooBig: 1009,
  /** The server failed while checking the token. */
  internal: 1011,
  /** The database was unreachable while checking the token: reconnect later. */
  tryAgainLater: 1013,
} as const;

/**
 * At shutdown each socket and event stream is told to wait a random part of this before it
 * reconnects, so a node's clients do not all land on the other nodes in the same instant.
 */
export const RECONNECT_SPREAD_MS = 5000;
export const reconnectDelayMs = (): number => Math.floor(Math.random() * RECONNECT_SPREAD_MS);
/** The close reason of a socket at shutdown: the delay is the reconnect hint. */
export const goingAwayReason = (delayMs: number): string => `server shutting down; reconnect in ${delayMs} ms`;

/** Largest client frame: a bigger one closes the socket with 1009. */
export const MAX_FRAME_BYTES = 16 * 1024;
/** uWS cuts the connection without a close frame beyond this (before the frame is even buffered). */
export const HARD_FRAME_BYTES = 4 * MAX_FRAME_BYTES;
/** A socket without credentials is closed after this long. */
export const AUTH_TIMEOUT_MS = 10_000;

/** Every string of a frame may reach a query: text Postgres cannot hold is refused as a bad frame. */
const storable = () =>
  v.check(
    (s: string) => unstorable(s) === undefined,
    (issue) => unstorable(issue.input) ?? '',
  );
/** A required string field of a client frame. */
export const frameText = (max: number) => v.pipe(v.string('must be a string'), v.minLength(1, 'is required'), v.maxLength(max, `must be at most ${max} characters`), storable());

const Auth = v.object({ type: v.literal('auth'), token: frameText(200), jwt: v.optional(frameText(4096)) });
const Subscribe = v.object({ type: v.literal('subscribe'), topic: frameText(TOPIC_ID_MAX + 20), cursor: v.optional(v.pipe(v.string('must be a string'), v.maxLength(1024), storable())) });
const Unsubscribe = v.object({ type: v.literal('unsubscribe'), topic: frameText(TOPIC_ID_MAX + 20) });
const Ping = v.object({ type: v.literal('ping') });

/** The protocol's own client frames, by type; areas register theirs (ClientFrames). */
export const PROTOCOL_FRAMES = { auth: Auth, subscribe: Subscribe, unsubscribe: Unsubscribe, ping: Ping };
export type ProtocolFrame = v.InferOutput<(typeof PROTOCOL_FRAMES)[keyof typeof PROTOCOL_FRAMES]>;

/** Error codes of `error` frames. */
export const ERROR_CODES = [
  'bad_frame',
  'bad_topic',
  'bad_request',
  'forbidden',
  'not_found',
  'too_many_subscriptions',
  'already_subscribed',
  'not_subscribed',
  'cursor_not_supported',
  'rate_limited',
  'internal',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export const errorFrame = (code: ErrorCode, message: string, topic?: string) => JSON.stringify({ type: 'error', code, message, ...(topic === undefined ? {} : { topic }) });
