import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { userToken } from '../foundation/util.js';
import { type RouteTableServer, type ServedRoute, startWithRouteTable } from '../helpers/route-table.js';
import { MANAGE_TOKEN } from '../helpers/spawn.js';

/**
 * Thousands of generated bad requests over every route of the route table: wrong JSON, wrong
 * types, NUL, lone surrogates, deep nesting, huge numbers, bad cursors, bad path parameters and
 * query values. No answer may be a 5xx, every answer must be the JSON envelope, and the server
 * must still be up afterwards. The target is a server process of its own (test/helpers/route-table-server.ts),
 * on the database the suite runs on, which tells its route table.
 * A fixed seed makes a failure reproduce; bounded in count and in time.
 */
const SEED = 15_0001;
const REQUESTS = 3000;
const TIME_BUDGET_MS = 40_000;
const CONCURRENCY = 8;

/** mulberry32: small, fast, and the same sequence for the same seed. */
function rng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { next, int: (n: number) => Math.floor(next() * n), pick: <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)] as T };
}
type Rng = ReturnType<typeof rng>;

const b64 = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');
const deep = (depth: number, leaf = '1') => `${'{"a":['.repeat(depth)}${leaf}${']}'.repeat(depth)}`;

/** Values of every wrong kind, as JSON text (some of them not JSON values at all). */
const BAD_JSON_VALUES = [
  '"a\\u0000b"',
  '"\\ud800"',
  '"x\\udfffy"',
  '"\\u0000"',
  '1e400',
  '-1e400',
  '123456789012345678901234567890',
  '-0',
  '0.5',
  '-1',
  '2147483648',
  'true',
  'false',
  'null',
  '[]',
  '{}',
  '[1,"a",null]',
  '{"a":{"b":{"c":[]}}}',
  '""',
  '" "',
  `"${'x'.repeat(70_000)}"`,
  '"2024-02-31T00:00:00Z"',
  '"-000001-01-01T00:00:00Z"',
  '"99999-01-01T00:00:00Z"',
  '"NaN"',
  '"Infinity"',
  '"1e400"',
  '"\\u00e9\\ud83d\\ude00"',
  '["a\\u0000"]',
  '{"__proto__":{"x":1}}',
  deep(100),
];

const BAD_QUERY_VALUES = ['%00', 'a%00b', '%ED%A0%80', '%zz', '1e400', '-1', '99999999999999999999', 'abc', '', 'true', '0', '%FF%FE', 'x'.repeat(3000), '[]', '%5B%5D'];

const BAD_CURSORS = [
  'WyJhIiwiYiJd',
  '!!!',
  '%00',
  b64('a\u0000b'),
  b64('\ud800'),
  b64(['2024-13-45T00:00:00.000000Z', 'x']),
  b64(['0000-01-01T00:00:00.000000Z', 'x']),
  b64(['2024-01-01T00:00:00.000000Z', 'x\u0000']),
  b64({ u: -1 }),
  b64({ u: 1e300 }),
  b64({ b: 0 }),
  b64({ h: 5 }),
  b64({ a: '2024-02-31T00:00:00.000Z', i: 'x' }),
  b64({ a: 'x', i: 'y' }),
  b64({ added: '2024-01-01T00:00:00.000Z', key: 'x\u0000' }),
  b64({ o: -5 }),
  b64({ o: 1e20 }),
  b64(deep(200)),
  b64('"'),
  b64(null),
  b64(12),
];

const BAD_SEGMENTS = ['%00', 'a%00b', '%ED%A0%80', '%zz', '%', 'x'.repeat(3000), '..', '%2F', '0', '-1', '1e400', 'null', '%F0%9F%98%80', '%C0%AF'];

interface Fixtures {
  appid: string;
  token: string;
  jwt: string;
  ids: string[];
}

/** One generated request: method, URL relative to the server, headers, body text. */
interface Generated {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string | undefined;
}

function badBody(r: Rng, fields: string[]): string {
  switch (r.int(8)) {
    case 0:
      return r.pick(['{', '{"a":', '{"a" 1}', '[', 'nul\u0000', '\u00ff\u00fe', '{"a":"\\x"}', '{"a":"\\ud800', 'undefined', '{"a":1,}']);
    case 1:
      return r.pick(['[]', '1', '"s"', 'null', 'true', '[{}]']);
    case 2:
      return deep(r.pick([65, 1000, 5000, 10_000]));
    case 3:
      return `${'['.repeat(r.pick([64, 3000, 9000]))}${']'.repeat(r.pick([64, 3000, 9000]))}`;
    default: {
      // An object whose declared fields (and a few stray ones) hold wrong values, in any case.
      const names = fields.length > 0 ? fields : ['userid', 'body', 'name', 'cursor', 'limit'];
      const parts: string[] = [];
      const count = 1 + r.int(Math.min(6, names.length + 2));
      for (let i = 0; i < count; i++) {
        let name = r.next() < 0.9 ? r.pick(names) : r.pick(['__proto__', 'constructor', 'a\\u0000', '\\ud800', 'X'.repeat(300)]);
        if (r.next() < 0.2) name = name.toUpperCase();
        parts.push(`"${name}":${r.pick(BAD_JSON_VALUES)}`);
      }
      return `{${parts.join(',')}}`;
    }
  }
}

function badQuery(r: Rng, fields: string[]): string {
  const names = [...fields, 'cursor', 'limit'];
  const parts: string[] = [];
  const count = 1 + r.int(4);
  for (let i = 0; i < count; i++) {
    const name = r.pick(names);
    const value = name === 'cursor' && r.next() < 0.7 ? r.pick(BAD_CURSORS) : r.pick(BAD_QUERY_VALUES);
    parts.push(`${r.next() < 0.1 ? '%00' : name}=${value}`);
  }
  return parts.join('&');
}

function generate(r: Rng, route: ServedRoute, f: Fixtures): Generated {
  const scope = route.scope;
  const prefix = scope === 'app' ? `/api/v3/${r.next() < 0.95 ? f.appid : r.pick(BAD_SEGMENTS)}/` : scope === 'manage' ? '/api/v3/manage/' : '/';
  const path = route.path
    .split('/')
    .map((segment) => (segment.startsWith(':') ? (r.next() < 0.5 ? encodeURIComponent(r.pick(f.ids)) : r.pick(BAD_SEGMENTS)) : segment))
    .join('/');
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (scope === 'app' && r.next() < 0.95) headers['x-api-token'] = f.token;
  if (scope === 'manage' && r.next() < 0.95) headers['x-manage-token'] = MANAGE_TOKEN;
  if (scope === 'app' && r.next() < 0.3) headers['authorization'] = r.next() < 0.8 ? `Bearer ${f.jwt}` : r.pick(['Bearer', 'Bearer x.y.z', 'Basic abc', `Bearer ${'a'.repeat(5000)}`]);
  const query = route.query !== undefined || r.next() < 0.2 ? badQuery(r, route.query ?? []) : '';
  const body = route.method === 'GET' ? undefined : r.next() < 0.95 ? badBody(r, route.body ?? []) : undefined;
  return { method: route.method, url: `${prefix}${path}${query === '' ? '' : `?${query}`}`, headers, body };
}

/** What is wrong with one answer, or undefined when it is a client error (or success) in the envelope. */
function problemWith(status: number, contentType: string | null, text: string): string | undefined {
  if (status >= 500) return `status ${status}: ${text.slice(0, 300)}`;
  if (status === 204 && text === '') return undefined;
  // A backup (POST manage/backups) is a download, not an envelope; its body ignores what was sent.
  if (status === 200 && contentType === 'application/gzip') return undefined;
  if (!(contentType ?? '').startsWith('application/json')) return `status ${status}, content-type ${contentType}: ${text.slice(0, 200)}`;
  try {
    const body = JSON.parse(text) as { kind?: unknown; code?: unknown; errors?: unknown };
    if (body.kind !== 'api.result' || body.code !== status || typeof body.errors !== 'object' || body.errors === null) return `not the envelope: ${text.slice(0, 300)}`;
  } catch {
    return `not JSON: ${text.slice(0, 300)}`;
  }
  return undefined;
}

describe('fuzzing every route with bad requests', () => {
  let server: RouteTableServer;
  let base: string;
  let routes: ServedRoute[];
  let fixtures: Fixtures;

  beforeAll(async () => {
    server = await startWithRouteTable({ LOG_LEVEL: 'error' });
    routes = server.routes;
    base = `http://127.0.0.1:${server.port}`;
    const post = async (path: string, body: unknown, headers: Record<string, string>) => {
      const res = await fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
      return ((await res.json()) as { data: Record<string, unknown> }).data;
    };
    const app = await post('/api/v3/manage/createapplication', { name: 'fuzz' }, { 'x-manage-token': MANAGE_TOKEN });
    const appid = app['appid'] as string;
    const token = (await post('/api/v3/manage/createtoken', { applicationid: appid, name: 'fuzz' }, { 'x-manage-token': MANAGE_TOKEN }))['token'] as string;
    const auth = { 'x-api-token': token };
    const api = `/api/v3/${appid}`;
    await post(`${api}/user/users/fuzzer`, { displayname: 'Fuzzer' }, auth);
    const room = await post(`${api}/chat/rooms`, { name: 'fuzz room', customid: 'fuzzroom' }, auth);
    await post(`${api}/chat/rooms/${room['id'] as string}/join`, { userid: 'fuzzer' }, auth);
    const said = await post(`${api}/chat/rooms/${room['id'] as string}/command`, { userid: 'fuzzer', command: 'hello' }, auth);
    const conv = await post(`${api}/comment/conversations`, { conversationid: 'fuzzconv', property: 'p', moderation: 'post' }, auth);
    const comment = await post(`${api}/comment/conversations/fuzzconv/comments`, { userid: 'fuzzer', body: 'hi' }, auth);
    const poll = await post(`${api}/poll/poll/create`, { title: 'fuzz poll', customid: 'fuzzpoll' }, auth);
    const ids = [room['id'], room['customid'], (said['speech'] as Record<string, unknown> | undefined)?.['id'], conv['conversationid'], comment['id'], poll['id'], 'fuzzer', appid].filter(
      (x): x is string => typeof x === 'string',
    );
    fixtures = { appid, token, jwt: await userToken(app['jwtsecret'] as string, { userid: 'fuzzer', role: 'user' }), ids };
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
  });

  it('answers every one with a client error in the envelope, never a 5xx, and stays up', async () => {
    expect(routes.length).toBeGreaterThan(80);
    const r = rng(SEED);
    const planned = Array.from({ length: REQUESTS }, (_, i) => generate(r, routes[i % routes.length] as ServedRoute, fixtures));
    const problems: string[] = [];
    const deadline = Date.now() + TIME_BUDGET_MS;
    let sent = 0;
    const worker = async () => {
      while (sent < planned.length && Date.now() < deadline) {
        const g = planned[sent++] as Generated;
        const res = await fetch(`${base}${g.url}`, { method: g.method, headers: g.headers, body: g.body });
        const problem = problemWith(res.status, res.headers.get('content-type'), await res.text());
        if (problem !== undefined) problems.push(`${problem} <- ${g.method} ${g.url.slice(0, 200)} body=${JSON.stringify((g.body ?? '').slice(0, 200))}`);
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    expect(problems.slice(0, 15), `${problems.length} bad answers`).toEqual([]);
    // The time bound must not hollow the test out: most of the plan has to have run.
    expect(sent, `${sent} of ${REQUESTS} sent within ${TIME_BUDGET_MS} ms`).toBeGreaterThan(REQUESTS / 3);
    const health = await fetch(`${base}/healthz`);
    expect(health.status).toBe(200);
    expect(server.child.exitCode).toBeNull();
  }, 90_000);
});
