import type { ClientFrames } from '../realtime/client-frames.js';
import { AUTH_TIMEOUT_MS, CLOSE, ERROR_CODES, MAX_FRAME_BYTES } from '../realtime/protocol.js';
import type { TopicKindDef, TopicRegistry } from '../realtime/topics.js';
import { jsonSchemaOf, type JsonSchema } from './json-schema.js';

/** The WebSocket protocol as the areas registered it: topic kinds and client frames. */
export interface Protocol {
  topics: TopicRegistry;
  frames: ClientFrames;
}

const CLOSE_MEANINGS: Record<keyof typeof CLOSE, string> = {
  goingAway: 'server shutting down',
  tooBig: `frame larger than ${MAX_FRAME_BYTES} bytes`,
  internal: 'server error while authenticating (e.g. database unreachable); reconnect later',
  authRequired: `not authenticated (no credentials within ${AUTH_TIMEOUT_MS / 1000} s, or another frame before auth)`,
  authRefused: 'API token or user token refused',
  slowConsumer: 'slow consumer: more than WS_MAX_BACKPRESSURE bytes unsent',
  tryAgainLater: 'the database was unreachable while authenticating; reconnect later',
  rateLimited: 'rate limited: kept sending past the frame budget, or the address is locked out after failed authentication; reconnect after a while',
};

const str = { type: 'string' };
const frame = (type: string, properties: Record<string, JsonSchema>, required: string[]): JsonSchema => ({
  type: 'object',
  properties: { type: { const: type }, ...properties },
  required: ['type', ...required],
});

/** Server frames other than events (those are one message per topic kind). */
const serverFrames = (topic: JsonSchema): Record<string, { summary: string; payload: JsonSchema }> => ({
  ready: {
    summary: 'Authenticated.',
    payload: frame('ready', { appid: str, userid: { type: ['string', 'null'] }, role: { enum: ['user', 'moderator', 'admin', null] } }, ['appid', 'userid', 'role']),
  },
  subscribed: {
    summary:
      'The subscription is active; with a cursor (resumed: true) it comes once the cursor proved valid, before the replayed events; without one, a topic that can resume (rooms) adds its current cursor and seq: resume from there.',
    payload: frame('subscribed', { topic, resumed: { type: 'boolean' }, cursor: str, seq: { type: 'integer' } }, ['topic']),
  },
  unsubscribed: {
    summary: "After unsubscribe; or unasked, with a reason, when the topic's object is gone (reason deleted: a room was deleted).",
    payload: frame('unsubscribed', { topic, reason: str }, ['topic']),
  },
  error: {
    summary: 'A frame was refused; the socket stays open.',
    payload: frame('error', { code: { enum: [...ERROR_CODES] }, message: str, topic }, ['code', 'message']),
  },
  pong: { summary: 'Answer to ping.', payload: frame('pong', {}, []) },
  ref: {
    summary: 'Compact frames (?encoding=compact): comes before anything of a topic; frames of the topic carry its number t.',
    payload: frame('ref', { topic, t: { type: 'integer' } }, ['topic', 't']),
  },
  refs: {
    summary: "Compact frames: objects to keep before the topic's first item, each whole with its kind k and number #.",
    payload: frame('refs', { t: { type: 'integer' }, r: { type: 'array', items: { type: 'object' } } }, ['t', 'r']),
  },
  batch: {
    summary: 'Compact frames: replayed items of topic t; a binary frame is a batch deflated (compress=deflate-raw). See docs/realtime.md, Compact frames.',
    payload: frame('batch', { t: { type: 'integer' }, p: { type: ['integer', 'null'] }, e: { type: 'array' } }, ['t', 'p', 'e']),
  },
});

/** A live item in compact frames: `[t, data, seq?, prev?, event?, cursor?]`. */
const compactEvent = {
  summary: "Compact frames: a live item of topic t, data written by its shape (the ready frame's dictionary). See docs/realtime.md, Compact frames.",
  payload: {
    type: 'array',
    prefixItems: [{ type: 'integer' }, {}, { type: ['integer', 'null'] }, { type: ['integer', 'null'] }, { type: ['string', 'null'] }, { type: ['string', 'null'] }],
    minItems: 2,
    maxItems: 6,
  },
};

/** Events of a kind that can resume from a cursor carry their seq and cursor. */
const eventPayload = (kind: string, def: TopicKindDef): JsonSchema =>
  frame(
    'event',
    {
      topic: { type: 'string', pattern: `^${kind}:`, description: `${kind}:{id}` },
      event: { enum: def.doc.events },
      data: { type: 'object', description: 'The object REST returns.' },
      ...(def.replay !== undefined
        ? {
            seq: { type: 'integer', description: 'Per room, +1 per feed item.' },
            prev: {
              type: 'integer',
              description:
                "The seq of the event before this one in this stream: when it is not seq - 1, the items between are ones this subscriber may not see (shadow-banned, deleted), not a loss. Absent on a node's first event of the topic.",
            },
            cursor: { type: 'string', description: 'The REST updates cursor after this item.' },
          }
        : {}),
    },
    ['topic', 'event', 'data', ...(def.replay !== undefined ? ['seq', 'cursor'] : [])],
  );

const CHANNEL = 'socket';
const STREAM = 'stream';
const ref = (message: string, channel = CHANNEL) => ({ $ref: `#/channels/${channel}/messages/${message}` });

/** One server-sent event per topic kind: `event:` is the event name, `data:` the REST object, `id:` the stream's room cursors. */
const streamMessage = (kind: string, def: TopicKindDef): JsonSchema => ({
  name: `sse-${kind}`,
  title: `server-sent event on ${kind}:{id}`,
  summary: `event: ${def.doc.events.join(' | ')}; id: ${def.replay !== undefined ? "the room's cursor (several rooms: their cursors, comma-separated)" : "the stream's room cursors, if it follows rooms"}. Who may follow: ${def.doc.who}.`,
  payload: { type: 'object', description: 'The data: line, the object REST returns.' },
});

/** The AsyncAPI 3.0 document of the WebSocket protocol, as served at GET /asyncapi.json. */
export function asyncApiDocument(info: { version: string }, protocol: Protocol): JsonSchema {
  const topics = [...protocol.topics.entries()];
  const clientFrames = protocol.frames.all();
  const server = serverFrames({ type: 'string', pattern: `^(${topics.map(([kind]) => kind).join('|')}):.{1,250}$`, description: 'kind:id' });
  const messages: Record<string, JsonSchema> = {};
  for (const [type, schema] of Object.entries(clientFrames)) messages[type] = { name: type, title: `${type} (client → server)`, payload: jsonSchemaOf(schema) };
  for (const [type, { summary, payload }] of Object.entries(server)) messages[type] = { name: type, title: `${type} (server → client)`, summary, payload };
  for (const [kind, def] of topics)
    messages[`event-${kind}`] = { name: `event-${kind}`, title: `event on ${kind}:{id}`, summary: `Who may subscribe: ${def.doc.who}.`, payload: eventPayload(kind, def) };
  messages['event-compact'] = { name: 'event-compact', title: 'event in compact frames (server → client)', ...compactEvent };

  const serverTypes = [...Object.keys(server), ...topics.map(([kind]) => `event-${kind}`), 'event-compact'];
  return {
    asyncapi: '3.0.0',
    info: {
      title: 'engage-server WebSocket protocol and event stream',
      version: info.version,
      description:
        'One WebSocket per application, on the REST port. Frames are JSON text, one object per frame (with ?encoding=compact, live items are compact arrays: docs/realtime.md, Compact frames). Authenticate with the x-api-token header, ?token=, or an auth frame within ' +
        `${AUTH_TIMEOUT_MS / 1000} s; an optional user token as Authorization: Bearer, ?jwt=, or the auth frame's jwt. Close codes: see x-close-codes on the channel. ` +
        'The same topics as server-sent events: GET /api/v3/{appid}/sse?topic=…&token=…&jwt=…, resumable by Last-Event-ID. See docs/realtime.md.',
    },
    defaultContentType: 'application/json',
    channels: {
      [CHANNEL]: {
        address: '/api/v3/{appid}/ws',
        parameters: { appid: { description: 'The application id.' } },
        messages,
        bindings: {
          ws: {
            method: 'GET',
            query: {
              type: 'object',
              properties: {
                token: { type: 'string', description: "The application's API token." },
                jwt: { type: 'string', description: 'A user token.' },
                encoding: { const: 'compact', description: 'Compact frames (docs/realtime.md).' },
                compress: { const: 'deflate-raw', description: 'Compact frames: replayed batches may come deflated, as binary frames.' },
                dictionary: { type: 'string', description: 'Compact frames: the id of the dictionary the client holds.' },
              },
            },
            headers: { type: 'object', properties: { 'x-api-token': str, authorization: { type: 'string', description: 'Bearer <user token>' } } },
          },
        },
        'x-close-codes': (Object.keys(CLOSE) as (keyof typeof CLOSE)[]).map((name) => ({ code: CLOSE[name], meaning: CLOSE_MEANINGS[name] })).sort((a, b) => a.code - b.code),
      },
      [STREAM]: {
        address: '/api/v3/{appid}/sse',
        parameters: { appid: { description: 'The application id.' } },
        messages: Object.fromEntries(topics.map(([kind, def]) => [`sse-${kind}`, streamMessage(kind, def)])),
        bindings: {
          http: {
            method: 'GET',
            query: {
              type: 'object',
              properties: {
                topic: { type: 'array', items: str, description: 'Repeat for several topics.' },
                token: { type: 'string', description: "The application's API token." },
                jwt: { type: 'string', description: 'A user token.' },
              },
            },
          },
        },
      },
    },
    operations: {
      // Actions are the server's: it receives the client's frames and sends its own.
      ...Object.fromEntries(Object.keys(clientFrames).map((type) => [`client-${type}`, { action: 'receive', channel: { $ref: `#/channels/${CHANNEL}` }, messages: [ref(type)] }])),
      ...Object.fromEntries(serverTypes.map((type) => [`server-${type}`, { action: 'send', channel: { $ref: `#/channels/${CHANNEL}` }, messages: [ref(type)] }])),
      ...Object.fromEntries(topics.map(([kind]) => [`stream-${kind}`, { action: 'send', channel: { $ref: `#/channels/${STREAM}` }, messages: [ref(`sse-${kind}`, STREAM)] }])),
    },
  };
}
