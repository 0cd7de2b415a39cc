import { fullPath, routePattern } from '../http/paths.js';
import { type RouteDef, writesToDatabase } from '../http/route.js';
import { jsonSchemaOf, type JsonSchema } from './json-schema.js';

/** Answers every route may give, by status, and what they mean here. */
const ERRORS: Record<number, { name: string; description: string }> = {
  400: { name: 'BadRequest', description: 'Invalid input: `errors` names each field (or `body`, `query`, a path parameter) and why.' },
  403: { name: 'Forbidden', description: 'The token is missing or not valid here, or the user token may not do this.' },
  404: { name: 'NotFound', description: 'No such object (or no endpoint at this path).' },
  405: { name: 'MethodNotAllowed', description: 'The path exists but not with this method (the `allow` header lists those that do), or a rule of the object refuses the action.' },
  409: { name: 'Conflict', description: 'The change conflicts with the current state (e.g. a customid or label already in use).' },
  413: { name: 'PayloadTooLarge', description: 'The body is larger than BODY_LIMIT.' },
  429: { name: 'TooManyRequests', description: 'A rate limit (writes per user, failed authentication per address): `Retry-After` and `RateLimit-*` headers say when to try again.' },
  500: { name: 'InternalError', description: 'The server failed; the request id (x-request-id) is in its log.' },
  503: { name: 'ServiceUnavailable', description: 'Not ready: the database or the bus is unreachable.' },
  507: { name: 'InsufficientStorage', description: "The database's disk is full: the write is refused (`Retry-After`) until space is freed; reads go on." },
};

const ENVELOPE: JsonSchema = {
  type: 'object',
  description: 'Every response body, success or error.',
  required: ['kind', 'message', 'code', 'errors', 'data'],
  properties: {
    kind: { const: 'api.result' },
    message: { type: 'string' },
    code: { type: 'integer', description: 'The HTTP status, repeated.' },
    errors: { type: 'object', additionalProperties: { type: 'string' }, description: 'Field name → why it was refused; empty on success.' },
    data: { description: 'The result (an object with its own `kind`), or null on errors.' },
  },
};

const jsonContent = (schema: JsonSchema) => ({ 'application/json': { schema } });
const errorRef = (status: number) => ({ $ref: `#/components/responses/${(ERRORS[status] as { name: string }).name}` });

/** The server-sent events endpoint (src/realtime/sse.ts): not in the route table, as it streams. */
const EVENT_STREAM: JsonSchema = {
  operationId: 'GET_sse',
  summary: "The WebSocket's topics as server-sent events (docs/realtime.md, Server-sent events)",
  parameters: [
    { name: 'appid', in: 'path', required: true, schema: { type: 'string' } },
    {
      name: 'topic',
      in: 'query',
      required: true,
      style: 'form',
      explode: true,
      schema: { type: 'array', items: { type: 'string' } },
      description: 'room:{id}, conversation:{id}, poll:{id}, context:{id} or user:{id}; repeat for several.',
    },
    { name: 'token', in: 'query', schema: { type: 'string' }, description: "The application's API token (or the x-api-token header)." },
    { name: 'jwt', in: 'query', schema: { type: 'string' }, description: 'A user token (or Authorization: Bearer).' },
    { name: 'Last-Event-ID', in: 'header', schema: { type: 'string' }, description: 'Resume after this id (the browser sends it when it reconnects); the lastEventId query parameter does the same.' },
  ],
  responses: {
    200: {
      description:
        'A text/event-stream: per event `id:` (the room cursors, comma-separated in the order of the room topics), `event:` (its name), `data:` (the REST object); a comment line every 15 s.',
      content: { 'text/event-stream': { schema: { type: 'string' } } },
    },
    ...Object.fromEntries([400, 403, 404, 429, 500, 503].map((status) => [status, errorRef(status)])),
  },
};

export interface DocumentInfo {
  version: string;
}

/** The OpenAPI 3.1 document of the route table, as served at GET /openapi.json. */
export function openApiDocument(routes: readonly RouteDef[], info: DocumentInfo): JsonSchema {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const path = routePattern(fullPath(route));
    (paths[path] ??= {})[route.method.toLowerCase()] = operation(route, path);
  }
  paths['/api/v3/{appid}/sse'] = { get: EVENT_STREAM };
  return {
    openapi: '3.1.0',
    info: {
      title: 'engage-server API v3',
      version: info.version,
      description:
        'Chat, comments, polls, presence, moderation and webhooks. Every answer is the envelope `{kind, message, code, errors, data}`. ' +
        'Field names are case-insensitive; booleans and numbers may be sent as strings. Live events: the WebSocket `/api/v3/{appid}/ws` and the event stream `/api/v3/{appid}/sse`, described at /asyncapi.json.',
    },
    paths,
    components: {
      schemas: { Envelope: ENVELOPE },
      responses: Object.fromEntries(Object.values(ERRORS).map(({ name, description }) => [name, { description, content: jsonContent({ $ref: '#/components/schemas/Envelope' }) }])),
      securitySchemes: {
        apiToken: { type: 'apiKey', in: 'header', name: 'x-api-token', description: "The application's API token (app:create prints one)." },
        userToken: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: "A user token: HS256 JWT signed with the application's secret; narrows the caller to that user's rights." },
        manageToken: { type: 'apiKey', in: 'header', name: 'x-manage-token', description: 'The operator token (MANAGE_TOKEN) for /api/v3/manage/*.' },
      },
    },
  };
}

function operation(route: RouteDef, path: string): JsonSchema {
  const scope = route.scope ?? 'app';
  const pathParams = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] as string);
  const parameters = [
    ...pathParams.map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } })),
    ...(route.query === undefined ? [] : queryParameters(jsonSchemaOf(route.query))),
  ];
  const statuses = [404, 405, 500];
  if (parameters.length > 0 || route.body !== undefined) statuses.push(400);
  // Credentials are counted (failed-authentication lockout) and checked against the database.
  if (scope !== 'public') statuses.push(403, 429, 503);
  if (route.body !== undefined) statuses.push(409, 413);
  if (writesToDatabase(route)) statuses.push(507);
  for (const status of route.errors ?? []) if (!statuses.includes(status)) statuses.push(status);
  statuses.sort((a, b) => a - b);
  const body = route.body === undefined ? undefined : jsonSchemaOf(route.body);
  return {
    operationId: operationId(route.method, path),
    tags: [tagOf(route, path)],
    summary: `${route.method} ${path}`,
    security: scope === 'manage' ? [{ manageToken: [] }] : scope === 'app' ? [{ apiToken: [] }, { apiToken: [], userToken: [] }] : [],
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(body === undefined ? {} : { requestBody: { required: Array.isArray(body['required']) && body['required'].length > 0, content: jsonContent(body) } }),
    responses: {
      200: { description: 'Done: `data` holds the result.', content: jsonContent({ $ref: '#/components/schemas/Envelope' }) },
      ...Object.fromEntries(statuses.filter((s) => ERRORS[s] !== undefined).map((s) => [s, errorRef(s)])),
    },
  };
}

/** Query parameters from the query schema's properties (a schema without any gives none). */
function queryParameters(schema: JsonSchema): JsonSchema[] {
  const properties = (schema['properties'] ?? {}) as Record<string, JsonSchema>;
  const required = new Set((schema['required'] ?? []) as string[]);
  return Object.entries(properties).map(([name, property]) => ({ name, in: 'query', required: required.has(name), schema: property }));
}

function tagOf(route: RouteDef, path: string): string {
  const scope = route.scope ?? 'app';
  if (scope === 'manage') return 'manage';
  if (scope === 'public') return 'operations';
  return path.split('/')[4] ?? 'app';
}

/** `POST /api/v3/{appid}/chat/rooms/{roomid}/command` → `postChatRoomsRoomidCommand`. */
function operationId(method: string, path: string): string {
  const words = path
    .replace(/^\/api\/v3\/(\{appid\}\/)?/, '')
    .split(/[^A-Za-z0-9]+/)
    .filter((w) => w !== '');
  return method.toLowerCase() + words.map((w) => w[0]?.toUpperCase() + w.slice(1)).join('');
}
