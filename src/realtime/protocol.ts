import * as v from 'valibot';
import { unstorable } from '../http/storable.js';
import type { TopicKind } from './live.js';

/** The WebSocket protocol (docs/realtime.md): client frames, server frames, close codes, limits. */

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

/** Largest client frame: a bigger one closes the socket with 1009. */
export const MAX_FRAME_BYTES = 16 * 1024;
/** uWS cuts the connection without a close frame beyond this (before the frame is even buffered). */
export const HARD_FRAME_BYTES = 4 * MAX_FRAME_BYTES;
/** A socket without credentials is closed after this long. */
export const AUTH_TIMEOUT_MS = 10_000;

export const TOPIC_KINDS: readonly TopicKind[] = ['room', 'conversation', 'poll', 'context', 'user'];
const ID_MAX = 250;

export interface Topic {
  kind: TopicKind;
  id: string;
  /** `kind:id`, as clients spell it. */
  name: string;
}

/** `room:abc` → its kind and id; undefined for anything else. */
export function parseTopic(name: string): Topic | undefined {
  const colon = name.indexOf(':');
  if (colon < 1) return undefined;
  const kind = name.slice(0, colon) as TopicKind;
  const id = name.slice(colon + 1);
  if (!TOPIC_KINDS.includes(kind) || id === '' || id.length > ID_MAX) return undefined;
  return { kind, id, name };
}

/** Every string of a frame may reach a query: text Postgres cannot hold is refused as a bad frame. */
const storable = () =>
  v.check(
    (s: string) => unstorable(s) === undefined,
    (issue) => unstorable(issue.input) ?? '',
  );
const str = (max: number) => v.pipe(v.string('must be a string'), v.minLength(1, 'is required'), v.maxLength(max, `must be at most ${max} characters`), storable());

const Auth = v.object({ type: v.literal('auth'), token: str(200), jwt: v.optional(str(4096)) });
const Subscribe = v.object({ type: v.literal('subscribe'), topic: str(ID_MAX + 20), cursor: v.optional(v.pipe(v.string('must be a string'), v.maxLength(1024), storable())) });
const Unsubscribe = v.object({ type: v.literal('unsubscribe'), topic: str(ID_MAX + 20) });
const Heartbeat = v.object({ type: v.literal('heartbeat'), contextid: str(ID_MAX), key: str(ID_MAX), userid: v.optional(str(ID_MAX)) });
const Ping = v.object({ type: v.literal('ping') });

/** Every client frame's schema, by its type (the AsyncAPI document is built from them). */
export const CLIENT_FRAMES = { auth: Auth, subscribe: Subscribe, unsubscribe: Unsubscribe, heartbeat: Heartbeat, ping: Ping };

const ClientFrame = v.variant('type', [Auth, Subscribe, Unsubscribe, Heartbeat, Ping], 'type must be auth, subscribe, unsubscribe, heartbeat or ping');
export type ClientFrame = v.InferOutput<typeof ClientFrame>;

export type Parsed = { ok: true; frame: ClientFrame } | { ok: false; message: string };

/** Text → a typed frame, or the reason it is not one. */
export function parseFrame(text: string): Parsed {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { ok: false, message: 'Frames must be JSON objects.' };
  }
  const result = v.safeParse(ClientFrame, json);
  if (result.success) return { ok: true, frame: result.output };
  const issue = result.issues[0];
  const path = issue === undefined ? undefined : v.getDotPath(issue);
  return { ok: false, message: path === null || path === undefined ? (issue?.message ?? 'Invalid frame.') : `${path} ${issue?.message}` };
}

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
